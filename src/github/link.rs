//! The `Link` response header GitHub paginates with (RFC 8288):
//! `<https://api.github.com/…&page=2>; rel="next", <…&page=5>; rel="last"`.
//! <https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api>

/// The target of the `rel="next"` link, if any.
pub(crate) fn next_link(header: &str) -> Option<String> {
    let mut rest = header;
    loop {
        let open = rest.find('<')?;
        let close = open + rest[open..].find('>')?;
        let target = &rest[open + 1..close];
        let after = &rest[close + 1..];
        // Parameters run to the next link's `<` (a `<` cannot appear inside
        // them unescaped); the `,` separating the links is trimmed off.
        let params_end = after.find('<').unwrap_or(after.len());
        let params = after[..params_end].trim_end().trim_end_matches(',');
        if params.split(';').any(is_rel_next) {
            return Some(target.trim().to_owned());
        }
        rest = &after[params_end..];
    }
}

/// `rel="next"`, `rel=next`, or a space-separated list containing `next`.
fn is_rel_next(param: &str) -> bool {
    let Some((key, value)) = param.split_once('=') else {
        return false;
    };
    key.trim().eq_ignore_ascii_case("rel")
        && value
            .trim()
            .trim_matches('"')
            .split_ascii_whitespace()
            .any(|r| r.eq_ignore_ascii_case("next"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_next_among_github_links() {
        let h = r#"<https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=2>; rel="next", <https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=3>; rel="last""#;
        assert_eq!(
            next_link(h).as_deref(),
            Some("https://api.github.com/repositories/1/issues/7/comments?per_page=100&page=2")
        );
    }

    #[test]
    fn next_after_prev_and_first() {
        let h = r#"<http://x/c?page=1>; rel="first", <http://x/c?page=2>; rel="prev", <http://x/c?page=4>; rel="next", <http://x/c?page=9>; rel="last""#;
        assert_eq!(next_link(h).as_deref(), Some("http://x/c?page=4"));
    }

    #[test]
    fn last_page_and_odd_forms() {
        assert_eq!(
            next_link(r#"<http://x/c?page=1>; rel="first", <http://x/c?page=2>; rel="prev""#),
            None
        );
        assert_eq!(next_link(""), None);
        assert_eq!(next_link("garbage"), None);
        assert_eq!(
            next_link("<http://x/c?page=2>; REL=next").as_deref(),
            Some("http://x/c?page=2")
        );
        assert_eq!(
            next_link(r#"<http://x/n>; rel="prefetch next""#).as_deref(),
            Some("http://x/n")
        );
        assert_eq!(
            next_link(r#"<http://x/c?a=1,2>; rel="next""#).as_deref(),
            Some("http://x/c?a=1,2")
        );
        assert_eq!(next_link("<http://x/unterminated; rel=next"), None);
    }
}
