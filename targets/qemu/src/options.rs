//! The device's `options` property: comma-separated `key=value` pairs.

/// Settings of one model instance.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Options {
    /// Log every MMIO write to this file (`trace=PATH`).
    pub trace: Option<String>,
}

impl Options {
    /// Parses `text` (`""` gives the defaults); names the first key it does not know.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut o = Options::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(format!("option `{item}` is not key=value (known keys: trace)"));
            };
            match key {
                "trace" if !value.is_empty() => o.trace = Some(value.to_string()),
                "trace" => return Err("option `trace=` needs a file path".to_string()),
                _ => return Err(format!("unknown option `{key}` (known keys: trace)")),
            }
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::Options;

    #[test]
    fn parses_and_refuses() {
        assert_eq!(Options::parse("").unwrap(), Options::default());
        assert_eq!(Options::parse("trace=/tmp/t").unwrap().trace.as_deref(), Some("/tmp/t"));
        assert!(Options::parse("speed=1").unwrap_err().contains("unknown option `speed`"));
        assert!(Options::parse("trace").unwrap_err().contains("not key=value"));
        assert!(Options::parse("trace=").unwrap_err().contains("needs a file path"));
    }
}
