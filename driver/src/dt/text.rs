//! Text from a device tree made safe to print: control characters are escaped.

use core::fmt;

/// Displays a string from a device tree with control characters (escape sequences, newlines,
/// NUL, DEL, C1 controls) written as Rust escapes (`\u{1b}`, `\n`), so a label or a phy mode
/// cannot drive the terminal or forge report lines. Other characters, quotes and backslashes
/// print as they are.
#[derive(Clone, Copy, Debug)]
pub struct Escaped<'s>(pub &'s str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(char::is_control) {
            f.write_str(&rest[..i])?;
            let c = rest[i..].chars().next().unwrap_or('\0');
            write!(f, "{}", c.escape_debug())?;
            rest = &rest[i + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::Escaped;
    use std::format;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(format!("{}", Escaped("lan\u{1b}[2J1\n\u{7f}\u{9b}x")), "lan\\u{1b}[2J1\\n\\u{7f}\\u{9b}x");
        assert_eq!(format!("{}", Escaped("wan \"é\" \\")), "wan \"é\" \\");
    }
}
