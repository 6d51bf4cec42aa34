// Showing text to a person: toolvet's one escaping rule, the same as the
// Rust core's `toolvet::display::visible` (SECURITY.md). Every text an
// adapter puts in front of a person (ADK's confirmation hint, a reviewer's
// view of a held call) goes through `visible`.

/** Ranges `visible` writes out besides the C0/C1 control characters. */
const HIDDEN: ReadonlyArray<readonly [number, number]> = [
  // Line and paragraph separators start a new line in many views.
  [0x2028, 0x2029],
  // Bidirectional controls reorder what a person reads.
  [0x061c, 0x061c],
  [0x200e, 0x200f],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
  // Invisible characters: soft hyphen, combining grapheme joiner, fillers,
  // zero-width space/joiners, word joiner and invisible operators,
  // deprecated format characters, byte-order mark, annotation marks.
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200d],
  [0x2060, 0x2064],
  [0x206a, 0x206f],
  [0x3164, 0x3164],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  // Variation selectors and tag characters hide text in a plain word.
  [0xfe00, 0xfe0f],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
];

function needsEscape(code: number): boolean {
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
    return true;
  }
  // Lone surrogates are not text a person can read either.
  if (code >= 0xd800 && code <= 0xdfff) {
    return true;
  }
  return HIDDEN.some(([lo, hi]) => code >= lo && code <= hi);
}

/**
 * `text` as a person may be shown it: control characters, the line and
 * paragraph separators, bidirectional controls and invisible characters
 * written out (`\n`, `\x1b`, `\u{202e}`), so a reason or argument quoting
 * the model's text cannot start a line, reorder or hide what the reviewer
 * reads. Everything else is unchanged.
 */
export function visible(text: string | undefined | null): string {
  const value = text ?? '';
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (!needsEscape(code)) {
      out += ch;
    } else if (ch === '\n') {
      out += '\\n';
    } else if (ch === '\r') {
      out += '\\r';
    } else if (ch === '\t') {
      out += '\\t';
    } else if (code < 0x100) {
      out += `\\x${code.toString(16).padStart(2, '0')}`;
    } else {
      out += `\\u{${code.toString(16)}}`;
    }
  }
  return out;
}
