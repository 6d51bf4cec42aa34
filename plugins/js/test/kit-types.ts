// A check written in TypeScript against the kit's declarations
// (toolvet-check/index.d.ts): type-checked, not run, in `make node-tests`
// (`tsc --noEmit`), so the declarations cannot drift from the kit's use.
import {
  Check,
  Context,
  Decision,
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
    return strongest(risky, earlier > this.settings.limit ? deny('sample.limit', 'too many') : allow());
  }
}

const built: Sample = Sample.fromSettingsJson('{"blocked": ["x"]}');
const kind: 'allow' | 'abstain' | 'deny' | 'escalate' = built.check(new ToolCall('run'), new ToolInfo(), new Context()).kind;
export const check = exportCheck(Sample, (level, message) => console.error(level, message, kind));
