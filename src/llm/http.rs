//! The HTTP plumbing the provider clients share: one reqwest client (rustls
//! with the ring provider octocrab already links), a JSON POST, and the
//! mapping of statuses, `Retry-After` and transport errors to [`CallError`].

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use serde_json::Value;

use super::error::{CallError, JudgeError};
use super::prompts::cap_chars;

/// Longest error message kept from a response body.
const MESSAGE_CHARS: usize = 300;

/// A client with `timeout` per request.
pub(crate) fn client(timeout: Duration) -> Result<reqwest::Client, JudgeError> {
    // reqwest is built without a default crypto provider; use the ring one
    // (already linked for octocrab). Installing twice is harmless.
    let _already_installed = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .user_agent(concat!("agenteval-gate/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| JudgeError::Client(e.to_string()))
}

/// An HTTP answer: status, `Retry-After`, body.
#[derive(Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub retry_after: Option<Duration>,
    pub body: String,
}

/// POST `body` as JSON with `headers`; transport failures become [`CallError`]s.
pub(crate) async fn post_json(
    client: &reqwest::Client,
    url: &str,
    headers: &[(HeaderName, HeaderValue)],
    body: &Value,
    timeout: Duration,
) -> Result<Reply, CallError> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        map.insert(k.clone(), v.clone());
    }
    let bytes = serde_json::to_vec(body).map_err(|e| CallError::Malformed(e.to_string()))?;
    let response = client
        .post(url)
        .headers(map)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(bytes)
        .send()
        .await
        .map_err(|e| transport(&e, timeout))?;
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()));
    let body = response.text().await.map_err(|e| transport(&e, timeout))?;
    Ok(Reply {
        status,
        retry_after,
        body,
    })
}

fn transport(e: &reqwest::Error, timeout: Duration) -> CallError {
    if e.is_timeout() {
        CallError::Timeout(timeout)
    } else {
        // Without the URL: it is in the settings already, and error chains
        // of some proxies repeat headers.
        let mut message = e.without_url_ref();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            message = format!("{message}: {s}");
            source = s.source();
        }
        CallError::Connect(cap_chars(&message, MESSAGE_CHARS))
    }
}

trait WithoutUrl {
    fn without_url_ref(&self) -> String;
}

impl WithoutUrl for reqwest::Error {
    fn without_url_ref(&self) -> String {
        let text = self.to_string();
        match self.url() {
            Some(url) => text
                .replace(&format!(" ({url})"), "")
                .replace(url.as_str(), "<url>"),
            None => text,
        }
    }
}

/// `Retry-After`: delay-seconds or an HTTP date (RFC 9110 §10.2.3).
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A non-2xx reply as a [`CallError`].
pub(crate) fn status_error(reply: &Reply) -> CallError {
    let message = error_message(&reply.body);
    match reply.status {
        429 => CallError::RateLimited {
            retry_after: reply.retry_after,
        },
        // 529: Anthropic's "overloaded".
        500..=599 => CallError::Server {
            status: reply.status,
            retry_after: reply.retry_after,
        },
        408 => CallError::Timeout(Duration::ZERO),
        401 | 403 => CallError::Auth {
            status: reply.status,
            message,
        },
        status => CallError::Rejected { status, message },
    }
}

/// The `error.message` of a provider's error body, else the body itself, capped.
pub(crate) fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.pointer("/message"))
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    cap_chars(from_json.as_deref().unwrap_or(body).trim(), MESSAGE_CHARS)
}

/// A header from static name and a runtime value (a key: never logged).
pub(crate) fn header(
    name: &'static str,
    value: &str,
) -> Result<(HeaderName, HeaderValue), JudgeError> {
    let mut v = HeaderValue::from_str(value).map_err(|_| {
        JudgeError::config(
            None,
            format!("the value for the `{name}` header is not a valid HTTP header value"),
            "check the API key variable for stray newlines or quotes",
        )
    })?;
    v.set_sensitive(true);
    Ok((HeaderName::from_static(name), v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_takes_seconds_and_dates() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(parse_retry_after(" 7 ", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:40 GMT", now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn statuses_map_to_classes() {
        let reply = |status, body: &str| Reply {
            status,
            retry_after: Some(Duration::from_secs(2)),
            body: body.to_owned(),
        };
        assert_eq!(
            status_error(&reply(429, "")),
            CallError::RateLimited {
                retry_after: Some(Duration::from_secs(2))
            }
        );
        assert!(status_error(&reply(503, "")).is_retryable());
        assert!(status_error(&reply(529, "")).is_retryable());
        let auth = status_error(&reply(401, r#"{"error": {"message": "bad key"}}"#));
        assert_eq!(
            auth,
            CallError::Auth {
                status: 401,
                message: "bad key".into()
            }
        );
        assert!(!auth.is_retryable() && auth.is_unavailability());
        assert!(!status_error(&reply(400, "x")).is_unavailability());
    }
}
