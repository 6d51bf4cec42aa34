// template: a minimal toolvet check in JavaScript (`toolvet new NAME --lang js`
// starts from it).
//
// Denies calls whose string arguments (at any depth) contain one of
// `blocked_words`. Replace the settings, the statics and `check` with your
// own logic; keep index.js as the component's entry.
import { Check, SettingsError, allow, deny, stringsIn, t } from '../toolvet-check/index.js';
// results: begin
import { Label, allowResult, pointer, redact, span } from '../toolvet-check/index.js';
// results: end

export class Template extends Check {
  static name = 'template';
  static version = '0.1.0';
  static description = 'Denies calls whose arguments contain a blocked word';
  static tools = ['*'];
  // The `[check.settings]` table: unknown keys and wrong types are errors
  // naming the key; missing keys take these defaults.
  static settings = {
    blocked_words: t.list(t.string(), ['DROP TABLE']),
    case_sensitive: t.boolean(false),
  };

  constructor(settings) {
    super(settings);
    settings.blocked_words.forEach((word, i) => {
      if (!word.trim()) throw new SettingsError(`settings.blocked_words[${i}]: must not be empty`);
    });
    this.fold = settings.case_sensitive ? (s) => s : (s) => s.toLowerCase();
    this.words = settings.blocked_words.map(this.fold);
    // results: begin
    // Built once, here (before the host's snapshot), not per result.
    const flags = settings.case_sensitive ? 'g' : 'gi';
    this.patterns = settings.blocked_words.map((w) => new RegExp(w.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'), flags));
    // results: end
  }

  check(call, _tool, _ctx) {
    for (const [, text] of stringsIn(call.json)) {
      const folded = this.fold(text);
      const i = this.words.findIndex((w) => folded.includes(w));
      if (i >= 0) {
        return deny(
          'template.blocked-word',
          `the arguments of \`${call.name}\` contain the blocked word \`${this.settings.blocked_words[i]}\`; remove it`,
        );
      }
    }
    return allow();
  }
  // results: begin

  /**
   * Vets what a tool returned: hides every blocked word (the model reads
   * `[redacted: blocked-word]` instead; in a JSON result, the whole string
   * holding it) and labels the run `blocked-word-seen`, which later calls'
   * checks read in `ctx.labels`.
   */
  checkResult(_call, _tool, _ctx, result) {
    const masks = [];
    for (const [at, text] of result.strings()) {
      for (const pattern of this.patterns) {
        for (const found of text.matchAll(pattern)) {
          masks.push(result.kind === 'json' ? pointer(at, 'blocked-word') : span(found.index, found.index + found[0].length, 'blocked-word'));
        }
      }
    }
    return masks.length ? redact(masks, [new Label('blocked-word-seen')]) : allowResult();
  }
  // results: end
}
