//! Text kept within bounds for messages and records: cut at a character
//! boundary with a mark, and the text of a panic payload.

/// Cut `s` to at most `max` bytes at a character boundary, marking the cut.
pub(crate) fn truncate(mut s: String, max: usize) -> String {
    if s.len() <= max {
        return s;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    s.push('…');
    s
}

/// The text of a panic payload.
pub(crate) fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate("short".into(), 10), "short");
        let cut = truncate("ééééé".into(), 6);
        assert!(cut.len() <= 6 && cut.ends_with('…'), "{cut}");
    }
}
