//! Cross-crate integration tests of the project (see the `[[test]]` targets).
