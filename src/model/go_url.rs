//! URLs as Go's `net/url.Parse` reads them, for the fields Karmada's API
//! server validates with it (a Cluster's `apiEndpoint` and `proxyURL`):
//! what it refuses, with its reason, and the parts Karmada then looks at.
//!
//! The rules restated here are Go's, at the module's `go 1.25` language
//! version that Karmada v1.18.2 builds with: no control characters; a
//! scheme is letters first, then letters, digits, `+`, `-` or `.`, before
//! a `:` (a leading `:` is a missing scheme); a reference without a
//! scheme whose first path segment has a colon is refused; the authority
//! after `//` is user information (the text before the last `@`, of
//! unreserved and sub-delimiter characters and `%` escapes), then a host:
//! an IPv6 literal in brackets (an optional zone after `%25`) with an
//! optional `:port`, or a name whose text after its last `:` is a port of
//! digits; a host's characters are letters, digits and
//! `-._~!$&'()*+,;=:<>"[]`, and its `%` escapes encode non-ASCII bytes
//! only; every `%` anywhere is followed by two hex digits.

/// The parts of a URL Karmada's validation reads.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Url {
    /// Lower-cased, as Go keeps it.
    pub scheme: String,
    /// The host with its port, empty when there is no authority.
    pub host: String,
    /// Whether user information came before the host.
    pub user: bool,
    /// The query, without `?`.
    pub raw_query: String,
    /// The fragment, unescaped.
    pub fragment: String,
}

/// `raw` parsed as `url.Parse` does, or its reason for refusing it.
pub fn parse(raw: &str) -> Result<Url, String> {
    let (before, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse_reference(before)?;
    if !fragment.is_empty() {
        url.fragment = unescape(fragment, Mode::Other)?;
    }
    Ok(url)
}

fn parse_reference(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("invalid control character in URL".into());
    }
    let mut url = Url::default();
    if raw == "*" {
        return Ok(url);
    }
    let (scheme, rest) = scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        url.raw_query = query.to_string();
        rest
    };
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // An opaque URL (`mailto:...`, `host:port`): no host.
            return Ok(url);
        }
        let segment = rest.split('/').next().unwrap_or_default();
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    let mut path = rest;
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, tail) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        let (user, host) = authority_parts(authority)?;
        url.user = user;
        url.host = host;
        path = tail;
    }
    unescape(path, Mode::Other)?;
    Ok(url)
}

/// The scheme and the rest, as Go's `getScheme` splits them.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i == 0 => return Ok(("", raw)),
            b'0'..=b'9' | b'+' | b'-' | b'.' => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Whether the authority has user information, and its host.
fn authority_parts(authority: &str) -> Result<(bool, String), String> {
    let Some(at) = authority.rfind('@') else {
        return Ok((false, host(authority)?));
    };
    let host = host(&authority[at + 1..])?;
    let userinfo = &authority[..at];
    let valid = userinfo
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&b));
    if !valid {
        return Err("net/url: invalid userinfo".into());
    }
    unescape(userinfo, Mode::Other)?;
    Ok((true, host))
}

/// A host as Go's `parseHost` takes it.
fn host(host: &str) -> Result<String, String> {
    match host.rfind('[') {
        Some(i) if i > 0 => return Err("invalid IP-literal".into()),
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return Err("missing ']' in host".into());
            };
            let port = &host[close + 1..];
            if !valid_port(port) {
                return Err(format!("invalid port {port:?} after host"));
            }
            let name = host.get(1..close).unwrap_or_default();
            let address = match name.find("%25") {
                Some(zone) => {
                    let address = unescape(&name[..zone], Mode::Host)?;
                    let zone = unescape(&name[zone..], Mode::Zone)?;
                    format!("{address}{zone}")
                }
                None => unescape(name, Mode::Host)?,
            };
            let (ip, zone) = address.split_once('%').unwrap_or((&address, "-"));
            if zone.is_empty() {
                return Err(format!(
                    "invalid host: ParseAddr({address:?}): zone must be a non-empty string"
                ));
            }
            if ip.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(if ip.parse::<std::net::Ipv4Addr>().is_ok() {
                    "invalid IP-literal".into()
                } else {
                    format!("invalid host: ParseAddr({address:?})")
                });
            }
            return Ok(host.to_string());
        }
        None => {}
    }
    if let Some(colon) = host.rfind(':') {
        let port = &host[colon..];
        if !valid_port(port) {
            return Err(format!("invalid port {port:?} after host"));
        }
    }
    unescape(host, Mode::Host)
}

/// Empty, or `:` and digits.
fn valid_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Host,
    Zone,
    Other,
}

/// The characters a host (or zone) may hold unescaped.
fn host_character(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:<>\"[]".contains(&b)
}

/// `s` with its `%` escapes decoded, or Go's reason for refusing them.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = |j: usize| bytes.get(j).and_then(|c| (*c as char).to_digit(16));
            let (Some(high), Some(low)) = (hex(i + 1), hex(i + 2)) else {
                let end = (i + 3).min(bytes.len());
                return Err(format!(
                    "invalid URL escape {:?}",
                    String::from_utf8_lossy(&bytes[i..end])
                ));
            };
            let escape = &s[i..i + 3];
            let value = (high << 4 | low) as u8;
            let refused = match mode {
                Mode::Host => high < 8 && escape != "%25",
                Mode::Zone => escape != "%25" && value != b' ' && !host_character(value),
                Mode::Other => false,
            };
            if refused {
                return Err(format!("invalid URL escape {escape:?}"));
            }
            out.push(value);
            i += 3;
            continue;
        }
        if mode != Mode::Other && b < 0x80 && !host_character(b) {
            return Err(format!(
                "invalid character {:?} in host name",
                (b as char).to_string()
            ));
        }
        out.push(b);
        i += 1;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each answer is what Go's `url.Parse` gives (go 1.25 language
    /// version), checked against it when these were written.
    #[test]
    fn urls_parse_as_go_parses_them() {
        let refused = [
            ("https://[::1", "missing ']' in host"),
            ("http://proxy:port:x", "invalid port \":x\" after host"),
            (":6443", "missing protocol scheme"),
            (
                "1host:6443",
                "first path segment in URL cannot contain colon",
            ),
            ("https://a b", "invalid character \" \" in host name"),
            ("https://{a}", "invalid character \"{\" in host name"),
            ("https://a%zz", "invalid URL escape \"%zz\""),
            ("https://a%41", "invalid URL escape \"%41\""),
            ("https://[10.0.0.1]", "invalid IP-literal"),
            ("https://a[::1]", "invalid IP-literal"),
            ("https://[::1]x", "invalid port \"x\" after host"),
            ("https://u%zz@a", "invalid URL escape \"%zz\""),
            ("https://u^@a", "net/url: invalid userinfo"),
            ("https://a/%zz", "invalid URL escape \"%zz\""),
            ("https://a#%zz", "invalid URL escape \"%zz\""),
            ("https://a\t", "invalid control character in URL"),
            (
                "https://[fe80::1%25]",
                "invalid host: ParseAddr(\"fe80::1%\"): zone must be a non-empty string",
            ),
        ];
        for (raw, why) in refused {
            assert_eq!(parse(raw), Err(why.to_string()), "{raw}");
        }
        let url = |scheme: &str, host: &str| Url {
            scheme: scheme.into(),
            host: host.into(),
            ..Url::default()
        };
        let accepted = [
            ("https://a.example:6443", url("https", "a.example:6443")),
            ("a.example:6443", url("a.example", "")),
            ("//a.example:6443", url("", "a.example:6443")),
            ("https://a.example#", url("https", "a.example")),
            ("https://a.example?", url("https", "a.example")),
            ("HTTP://proxy:8080", url("http", "proxy:8080")),
            ("http:proxy", url("http", "")),
            ("https://a%c3%a9", url("https", "aé")),
            (
                "https://[fe80::1%25eth0]:80",
                url("https", "[fe80::1%25eth0]:80"),
            ),
            ("https://a:b:80", url("https", "a:b:80")),
            ("https://a:", url("https", "a:")),
            ("https://a/ b", url("https", "a")),
            ("*", url("", "")),
        ];
        for (raw, parsed) in accepted {
            assert_eq!(parse(raw), Ok(parsed), "{raw}");
        }
        let full = parse("https://me@a.example/x?y=1#top");
        assert_eq!(
            full,
            Ok(Url {
                scheme: "https".into(),
                host: "a.example".into(),
                user: true,
                raw_query: "y=1".into(),
                fragment: "top".into(),
            })
        );
    }
}
