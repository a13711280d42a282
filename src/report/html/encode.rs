//! The explanations of a report, stored small: a fleet of 200 clusters and
//! 2,000 applications explains itself in some 200 MB of text, nearly all of
//! it the same few lines said about one cluster after another and one
//! application after another.
//!
//! Every line is stored once, in a table, with the name of the cluster it
//! is about replaced by [`PLACEHOLDER`]: `  eu-1  replicas 3` and
//! `  eu-2  replicas 3` are one entry. A line of an explanation is then a
//! token, `entry × (clusters + 1) + cluster + 1` (`+ 0` for a line about no
//! cluster). An explanation is its tokens, either as they are
//! (`[0, token…]`) or as those of an earlier explanation with as many
//! lines, with some entries exchanged for others and some lines replaced
//! (`[1, earlier, n, from, to (n pairs)…, position, token…]`): the
//! Deployment after another Deployment differs in its name, its image and
//! its replicas, whatever the number of clusters. The page decodes an
//! explanation when it is opened ([`decode`] is the same algorithm, for
//! the tests).

use std::collections::HashMap;

/// Stands for the cluster a line is about; a private-use character, which
/// no explanation writes (a line that holds one is stored as it is).
pub const PLACEHOLDER: char = '\u{E000}';

/// How many earlier explanations of the same length are tried as a base.
const CANDIDATES: usize = 8;

/// One line to store: the cluster it is about (an index into the report's
/// clusters), and its text.
pub struct Line<'a> {
    pub cluster: Option<usize>,
    pub text: &'a str,
}

/// The line table and each explanation's code, in the order given.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    pub lines: Vec<String>,
    pub explanations: Vec<Option<Vec<u64>>>,
}

/// Store `explanations` (`None`: none for that row) for a report of
/// `clusters` clusters.
pub fn encode(explanations: &[Option<Vec<Line<'_>>>], clusters: &[String]) -> Encoded {
    let base = clusters.len() as u64 + 1;
    let mut table: Vec<String> = Vec::new();
    let mut index: HashMap<String, u64> = HashMap::new();
    let mut tokens_of: Vec<Option<Vec<u64>>> = Vec::with_capacity(explanations.len());
    let mut codes = Vec::with_capacity(explanations.len());
    // Earlier explanations by length, most recent last.
    let mut by_length: HashMap<usize, Vec<usize>> = HashMap::new();
    for (row, explanation) in explanations.iter().enumerate() {
        let Some(lines) = explanation else {
            tokens_of.push(None);
            codes.push(None);
            continue;
        };
        let tokens: Vec<u64> = lines
            .iter()
            .map(|line| {
                let (text, cluster) = templated(line, clusters);
                let next = table.len() as u64;
                let entry = *index.entry(text).or_insert_with_key(|text| {
                    table.push(text.clone());
                    next
                });
                entry * base + cluster
            })
            .collect();
        let earlier = by_length.entry(tokens.len()).or_default();
        let literal = {
            let mut code = vec![0];
            code.extend(&tokens);
            code
        };
        let best = earlier
            .iter()
            .rev()
            .take(CANDIDATES)
            .filter_map(|&other| {
                let from = tokens_of[other].as_ref()?;
                Some(delta(other, from, &tokens, base))
            })
            .min_by_key(Vec::len);
        let code = match best {
            Some(delta) if delta.len() < literal.len() => delta,
            _ => literal,
        };
        earlier.push(row);
        tokens_of.push(Some(tokens));
        codes.push(Some(code));
    }
    Encoded {
        lines: table,
        explanations: codes,
    }
}

/// The stored text of `line` and its cluster part of the token.
fn templated(line: &Line<'_>, clusters: &[String]) -> (String, u64) {
    match line.cluster.and_then(|c| Some((c, clusters.get(c)?))) {
        Some((c, name)) if !name.is_empty() && !line.text.contains(PLACEHOLDER) => (
            line.text.replace(name.as_str(), &PLACEHOLDER.to_string()),
            c as u64 + 1,
        ),
        _ => (line.text.to_string(), 0),
    }
}

/// `to` as `from` (the explanation of row `other`) with entries exchanged
/// and lines replaced: each entry of `from` becomes the entry it most
/// often faces in `to` on a line about the same cluster; the lines that
/// rule leaves wrong are replaced whole.
fn delta(other: usize, from: &[u64], to: &[u64], base: u64) -> Vec<u64> {
    let mut faced: HashMap<u64, HashMap<u64, usize>> = HashMap::new();
    for (a, b) in from.iter().zip(to) {
        if a % base == b % base {
            *faced
                .entry(a / base)
                .or_default()
                .entry(b / base)
                .or_default() += 1;
        }
    }
    let mut exchanged: Vec<(u64, u64)> = faced
        .into_iter()
        .filter_map(|(entry, counts)| {
            // The most frequent; on a tie, the entry itself, then the smallest.
            let (&best, _) = counts.iter().max_by(|(x, m), (y, n)| {
                m.cmp(n)
                    .then((**x == entry).cmp(&(**y == entry)))
                    .then(y.cmp(x))
            })?;
            (best != entry).then_some((entry, best))
        })
        .collect();
    exchanged.sort_unstable();
    let map: HashMap<u64, u64> = exchanged.iter().copied().collect();
    let mut code = vec![1, other as u64, exchanged.len() as u64];
    for (entry, to) in &exchanged {
        code.extend([*entry, *to]);
    }
    for (position, (a, b)) in from.iter().zip(to).enumerate() {
        let entry = a / base;
        let made = map.get(&entry).copied().unwrap_or(entry) * base + a % base;
        if made != *b {
            code.extend([position as u64, *b]);
        }
    }
    code
}

/// The text of the explanation of `row`, as the page decodes it.
pub fn decode(encoded: &Encoded, clusters: &[String], row: usize) -> Option<String> {
    let base = clusters.len() as u64 + 1;
    let tokens = tokens(encoded, base, row)?;
    let mut text = String::new();
    for token in tokens {
        let line = encoded.lines.get((token / base) as usize)?;
        match (token % base).checked_sub(1) {
            Some(cluster) => {
                let name = clusters.get(cluster as usize)?;
                text.push_str(&line.replace(PLACEHOLDER, name));
            }
            None => text.push_str(line),
        }
        text.push('\n');
    }
    Some(text)
}

/// The tokens of the explanation of `row`, following its bases.
fn tokens(encoded: &Encoded, base: u64, row: usize) -> Option<Vec<u64>> {
    let code = encoded.explanations.get(row)?.as_ref()?;
    match code.first()? {
        0 => Some(code[1..].to_vec()),
        1 => {
            let other = *code.get(1)? as usize;
            if other >= row {
                return None;
            }
            let mut tokens = self::tokens(encoded, base, other)?;
            let pairs = *code.get(2)? as usize;
            let map: HashMap<u64, u64> = code
                .get(3..3 + 2 * pairs)?
                .chunks(2)
                .map(|pair| (pair[0], pair[1]))
                .collect();
            for token in &mut tokens {
                let entry = *token / base;
                *token = map.get(&entry).copied().unwrap_or(entry) * base + *token % base;
            }
            for replaced in code.get(3 + 2 * pairs..)?.chunks(2) {
                *tokens.get_mut(replaced[0] as usize)? = *replaced.get(1)?;
            }
            Some(tokens)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn explanation(
        clusters: &[String],
        name: &str,
        image: &str,
        replicas: &[u64],
    ) -> Vec<(Option<usize>, String)> {
        let mut lines = vec![(None, format!("Deployment/shop/{name} (apps/v1)"))];
        lines.push((None, "binding:".into()));
        for (c, cluster) in clusters.iter().enumerate() {
            lines.push((
                Some(c),
                format!("  {cluster}  replicas {}", replicas[c % replicas.len()]),
            ));
        }
        for (c, cluster) in clusters.iter().enumerate() {
            lines.push((Some(c), format!("  {cluster}:")));
            lines.push((Some(c), format!("    image {image} on {cluster}")));
        }
        lines
    }

    fn lines(owned: &[(Option<usize>, String)]) -> Vec<Line<'_>> {
        owned
            .iter()
            .map(|(cluster, text)| Line {
                cluster: *cluster,
                text,
            })
            .collect()
    }

    fn text(owned: &[(Option<usize>, String)]) -> String {
        owned.iter().map(|(_, t)| format!("{t}\n")).collect()
    }

    #[test]
    fn every_explanation_decodes_to_its_text() {
        // Names inside names and inside words: `a` in `replicas`, `eu-1` in `eu-10`.
        let clusters = names(&["a", "eu-1", "eu-10"]);
        let owned = [
            explanation(&clusters, "web", "web:1", &[3]),
            explanation(&clusters, "api", "api:2", &[5, 5, 3]),
            vec![(None, "odd \u{E000} line".to_string())],
            explanation(&clusters, "db", "db:1", &[1, 2, 3]),
            vec![(Some(0), "a line naming a, eu-1 and a again".to_string())],
            vec![(Some(1), "held \u{E000} eu-1".to_string())],
        ];
        let mut given: Vec<Option<Vec<Line<'_>>>> = owned.iter().map(|o| Some(lines(o))).collect();
        given.insert(2, None);
        let encoded = encode(&given, &clusters);
        assert_eq!(decode(&encoded, &clusters, 2), None);
        let rows = (0..given.len()).filter(|r| *r != 2);
        for (row, owned) in rows.zip(&owned) {
            assert_eq!(
                decode(&encoded, &clusters, row).as_deref(),
                Some(text(owned).as_str()),
                "row {row}"
            );
        }
    }

    #[test]
    fn a_similar_explanation_is_stored_as_its_differences() {
        let clusters: Vec<String> = (1..=12).map(|i| format!("eu-{i}")).collect();
        let owned = [
            explanation(&clusters, "web", "web:1", &[3]),
            explanation(&clusters, "api", "api:2", &[5]),
        ];
        let given: Vec<Option<Vec<Line<'_>>>> = owned.iter().map(|o| Some(lines(o))).collect();
        let encoded = encode(&given, &clusters);
        let second = encoded.explanations[1].clone().unwrap_or_default();
        assert_eq!(second[..2], [1, 0], "{second:?}");
        // Three exchanges (name, replicas, image), no line replaced, however
        // many clusters.
        assert_eq!(second.len(), 3 + 2 * 3, "{second:?}");
        // One `replicas` line and one `image` line serve every cluster.
        assert!(encoded
            .lines
            .contains(&format!("  {PLACEHOLDER}  replicas 3")));
        assert_eq!(
            encoded
                .lines
                .iter()
                .filter(|l| l.contains("replicas"))
                .count(),
            2
        );
        assert_eq!(
            decode(&encoded, &clusters, 1).as_deref(),
            Some(text(&owned[1]).as_str())
        );
    }
}
