//! Resource URIs (`resources/uri.ts`): `obsidian://vault/` and the vault path, every byte of a character other than
//! `/` and the unreserved ones percent-encoded; read back leniently (`%XX` in either case, any other character as
//! itself), the bytes required to be UTF-8.

/// What every resource URI of the vault starts with.
pub(crate) const URI_PREFIX: &str = "obsidian://vault/";

/// The resource template for a file by path.
pub(crate) const PATH_TEMPLATE: &str = "obsidian://vault/{+path}";

/// The URI of the file at `path`.
pub(crate) fn uri_of(path: &str) -> String {
    let mut uri = String::with_capacity(URI_PREFIX.len() + path.len());
    uri.push_str(URI_PREFIX);
    for byte in path.bytes() {
        if byte == b'/' || byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
        {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The vault path a URI names, or `None` when it is not a vault URI or its bytes are not UTF-8.
pub(crate) fn path_of(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix(URI_PREFIX)?.as_bytes();
    let mut bytes = Vec::with_capacity(rest.len());
    let mut at = 0;
    while at < rest.len() {
        if rest[at] == b'%'
            && let Some(byte) = rest
                .get(at + 1..at + 3)
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .filter(|hex| hex.bytes().all(|digit| digit.is_ascii_hexdigit()))
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            bytes.push(byte);
            at += 3;
            continue;
        }
        bytes.push(rest[at]);
        at += 1;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_comes_back_from_its_uri() {
        for path in [
            "Hub.md",
            "Día/Ñandú.md",
            "100% sure #1.md",
            "a b/c?d&e(f).md",
            "emoji 🦀.png",
            "%41.md",
        ] {
            let uri = uri_of(path);
            assert!(uri.is_ascii(), "{uri}");
            assert_eq!(path_of(&uri).as_deref(), Some(path), "{uri}");
        }
        assert_eq!(
            uri_of("Día/Ñandú.md"),
            "obsidian://vault/D%C3%ADa/%C3%91and%C3%BA.md"
        );
        assert_eq!(
            uri_of("100% sure #1.md"),
            "obsidian://vault/100%25%20sure%20%231.md"
        );
    }

    #[test]
    fn a_uri_a_client_expanded_itself_is_read_leniently() {
        assert_eq!(
            path_of("obsidian://vault/Gamma note.md").as_deref(),
            Some("Gamma note.md")
        );
        assert_eq!(
            path_of("obsidian://vault/d%c3%ada(1)").as_deref(),
            Some("día(1)")
        );
        assert_eq!(path_of("obsidian://vault/50%").as_deref(), Some("50%"));
        assert_eq!(path_of("obsidian://vault/%zz").as_deref(), Some("%zz"));
        assert_eq!(path_of("obsidian://vault/Día").as_deref(), Some("Día"));
        assert_eq!(path_of("obsidian://vault/%FF.md"), None, "not UTF-8");
        assert_eq!(path_of("file:///etc/passwd"), None);
        assert_eq!(path_of("obsidian://other/x.md"), None);
    }
}
