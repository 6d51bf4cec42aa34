// A check written in TypeScript against the kit's declarations
// (toolvet-check/index.d.ts): type-checked, not run, in `make node-tests`
// (`tsc --noEmit`), so the declarations cannot drift from the kit's use.
import {
  Check,
  Context,
  Decision,
  Label,
  ResultDecision,
  ToolResult,
  allowResult,
  pointer,
  redact,
  span,
  vetResult,
  withhold,
  SettingsError,
  ToolCall,
  ToolInfo,
  WARM_UP_TEXT,
  allow,
  deny,
  escalate,
  exportCheck,
  strongest,
  stringsIn,
  t,
  warmUpWith,
} from '../toolvet-check/index.js';

const settings = {
  blocked: t.list(t.string(), ['DROP TABLE']),
  mode: t.oneOf(['deny', 'escalate'] as const, 'deny'),
  limit: t.integer(10, { min: 1 }),
  owner: t.optional(t.string()),
};

interface Settings {
  blocked: string[];
  mode: 'deny' | 'escalate';
  limit: number;
  owner: string | null;
}

export class Sample extends Check<Settings> {
  static override name = 'sample';
  static override version = '0.1.0';
  static override description = 'A typed sample';
  static override tools = ['*'];
  static override roles = ['recipient'] as const;
  static override effects = ['outbound-message', 'publish'] as const;
  static override settings = settings;

  constructor(s: Settings) {
    super(s);
    if (s.blocked.some((w) => !w.trim())) throw new SettingsError('settings.blocked: must not be empty');
  }

  override warmUp(): void {
    warmUpWith(this, [['send_email', { to: ['a@example.com'], subject: 'hi', body: WARM_UP_TEXT }]]);
  }

  override check(call: ToolCall, tool: ToolInfo, ctx: Context): Decision {
    const args = call.args({ to: t.list(t.string(), []), subject: t.string('') });
    const to: string[] = args.to;
    const subject: string = args.subject;
    const earlier = ctx.history.filter((c) => c.ran && c.outcome !== 'denied').length;
    for (const [path, text] of stringsIn(call.json)) {
      if (this.settings.blocked.some((w) => text.includes(w))) {
        const rule = `sample.blocked:${path}`;
        return this.settings.mode === 'deny' ? deny(rule, 'blocked') : escalate(rule, 'look');
      }
    }
    const risky: Decision = tool.risk === 'high' ? escalate('sample.risk', `${to.length} ${subject}`) : allow();
    const steered = ctx.hasLabel('untrusted-content') && to.some((a) => ctx.labelValues('untrusted-content').includes(a));
    const effects = tool.facts?.effects.has('outbound-message') ?? false;
    if (steered && effects) return deny('sample.steered', 'steered');
    return strongest(risky, earlier > this.settings.limit ? deny('sample.limit', 'too many') : allow());
  }

  override checkResult(_call: ToolCall, _tool: ToolInfo, ctx: Context, result: ToolResult): ResultDecision {
    if (result.isError && ctx.labels.length > 0) return withhold('sample.error', 'withheld', [new Label('seen', ['x'])]);
    if (result.kind === 'json') return redact(result.strings().map(([at]) => pointer(at, 'string')));
    const i = result.content.indexOf('SECRET');
    return i >= 0 ? redact(span(i, i + 6, 'secret'), [new Label('secret-seen')]) : allowResult();
  }
}

const built: Sample = Sample.fromSettingsJson('{"blocked": ["x"]}');
const kind: 'allow' | 'abstain' | 'deny' | 'escalate' = built.check(new ToolCall('run'), new ToolInfo(), new Context()).kind;
export const check = exportCheck(Sample, (level, message) => console.error(level, message, kind));
export const resultCheck = check;
const vetted: ResultDecision = vetResult(built, new ToolCall('fetch'), new ToolInfo(), new Context(), ToolResult.text('SECRET'));
export const masks: number = vetted.hostMasks?.length ?? 0;
