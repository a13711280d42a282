//! Who a render commit is by: the author and the committer as `git commit`
//! would name them in the same repository and environment, so a render
//! commit made on a laptop or in CI carries the identity its pushes do.
//!
//! Each of name and email is looked up on its own, in git's order (git's
//! `ident.c`): the environment (`GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL`,
//! `GIT_COMMITTER_NAME`, `GIT_COMMITTER_EMAIL`), then the configuration of
//! the repository, then the user's and the system's (`author.name` or
//! `committer.name` before `user.name`, likewise for the email), then, for
//! the email, `EMAIL`. Where git would guess from the host's user database
//! and host name, a render uses `garrison` and `garrison@localhost`: a
//! guess would make the same render's commit differ from machine to
//! machine. An empty value counts as unset, as git refuses an empty name.

use git2::Config;

/// A name and an email, as a commit signature holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub email: String,
}

/// The name used where neither the environment nor any configuration names one.
pub const FALLBACK_NAME: &str = "garrison";
/// The email used where neither the environment nor any configuration gives one.
pub const FALLBACK_EMAIL: &str = "garrison@localhost";

/// The two roles of a commit signature, which git looks up under their own keys.
#[derive(Clone, Copy, Debug)]
pub enum Role {
    Author,
    Committer,
}

impl Role {
    /// `AUTHOR` or `COMMITTER`, as in `GIT_AUTHOR_NAME`.
    fn variable(self) -> &'static str {
        match self {
            Role::Author => "AUTHOR",
            Role::Committer => "COMMITTER",
        }
    }

    /// `author` or `committer`, as in the configuration key `author.name`.
    fn section(self) -> &'static str {
        match self {
            Role::Author => "author",
            Role::Committer => "committer",
        }
    }
}

/// The identity of `role`, from `env` (a variable's value, `None` when
/// unset) and `config` (a snapshot of the repository's configuration with
/// the user's and the system's beneath it; `None` when it cannot be read).
pub fn resolve(
    role: Role,
    config: Option<&Config>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Identity {
    let set = |value: Option<String>| value.filter(|v| !v.trim().is_empty());
    let configured = |key: String| set(config.and_then(|c| c.get_string(&key).ok()));
    let name = set(env(&format!("GIT_{}_NAME", role.variable())))
        .or_else(|| configured(format!("{}.name", role.section())))
        .or_else(|| configured("user.name".into()))
        .unwrap_or_else(|| FALLBACK_NAME.into());
    let email = set(env(&format!("GIT_{}_EMAIL", role.variable())))
        .or_else(|| configured(format!("{}.email", role.section())))
        .or_else(|| configured("user.email".into()))
        .or_else(|| set(env("EMAIL")))
        .unwrap_or_else(|| FALLBACK_EMAIL.into());
    Identity { name, email }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config");
        std::fs::write(&path, text).expect("write");
        let mut config = Config::open(&path).expect("config");
        let snapshot = config.snapshot().expect("snapshot");
        (dir, snapshot)
    }

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |key| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.to_string())
        }
    }

    fn of(identity: Identity) -> String {
        format!("{} <{}>", identity.name, identity.email)
    }

    #[test]
    fn the_environment_then_the_role_then_the_user_then_the_fallback() {
        let (_dir, user) = config("[user]\n\tname = User\n\temail = user@example.com\n");
        let (_dir2, roles) = config(
            "[user]\n\tname = User\n\temail = user@example.com\n\
             [author]\n\tname = Author\n[committer]\n\temail = committer@example.com\n",
        );
        let none = env(&[]);
        assert_eq!(
            of(resolve(Role::Author, Some(&user), &none)),
            "User <user@example.com>"
        );
        assert_eq!(
            of(resolve(Role::Author, Some(&roles), &none)),
            "Author <user@example.com>"
        );
        assert_eq!(
            of(resolve(Role::Committer, Some(&roles), &none)),
            "User <committer@example.com>"
        );
        let variables = env(&[
            ("GIT_AUTHOR_NAME", "Env Author"),
            ("GIT_COMMITTER_EMAIL", "env-committer@example.com"),
            ("EMAIL", "mail@example.com"),
        ]);
        assert_eq!(
            of(resolve(Role::Author, Some(&roles), &variables)),
            "Env Author <user@example.com>"
        );
        assert_eq!(
            of(resolve(Role::Committer, Some(&roles), &variables)),
            "User <env-committer@example.com>"
        );
        assert_eq!(
            of(resolve(Role::Author, None, &variables)),
            "Env Author <mail@example.com>",
            "EMAIL comes after every configuration"
        );
        assert_eq!(
            of(resolve(
                Role::Committer,
                None,
                &env(&[("GIT_COMMITTER_NAME", " ")])
            )),
            "garrison <garrison@localhost>",
            "an empty value is unset"
        );
    }
}
