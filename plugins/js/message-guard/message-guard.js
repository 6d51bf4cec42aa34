// message-guard: vets outgoing messages (email, chat, SMS) before an agent
// sends them: who receives them, what is attached and what they say.
// See README.md for the settings and rule ids.

import {
  Check, Context, SettingsError, ToolCall, ToolInfo, WARM_UP_TEXT, allow, deny, escalate, globMatcher, stringsIn, t, warmUpWith,
} from '../toolvet-check/index.js';

/** Default tool-name globs: tools that send messages. */
export const DEFAULT_TOOLS = [
  'send_*',
  'post_message*',
  'reply*',
  'forward*',
  'slack_*',
  'email_*',
  '*_email',
  'sms_*',
  '*_sms',
  'teams_*',
];

/**
 * What routes a call here on a host of contract 0.2 besides the tool-name
 * globs: the host found that the call sends a message (the tool catalog, or
 * the verbs of its name), whatever the tool is called.
 */
export const EFFECTS = ['outbound-message'];

/** Argument names holding recipients (strings, address lists, arrays, objects with an address). */
export const DEFAULT_RECIPIENT_FIELDS = [
  'to',
  'cc',
  'bcc',
  'recipients',
  'recipient',
  'toRecipients',
  'ccRecipients',
  'bccRecipients',
];

/** Argument names holding attachments (file names, paths, URLs, or objects with one). */
export const DEFAULT_ATTACHMENT_FIELDS = ['attachments', 'attachment', 'files', 'file'];

/** Argument names whose text is scanned by the content rules. */
export const DEFAULT_CONTENT_FIELDS = ['subject', 'body', 'text', 'message', 'html', 'content', 'blocks', 'caption'];

/** Extensions of executables, scripts, disk images and key stores, denied as attachments. */
export const DEFAULT_BLOCKED_EXTENSIONS = [
  'exe', 'dll', 'scr', 'com', 'bat', 'cmd', 'msi', 'msp', 'ps1', 'psm1', 'vbs', 'vbe', 'js', 'jse', 'wsf',
  'wsh', 'hta', 'cpl', 'lnk', 'jar', 'sh', 'apk', 'app', 'dmg', 'iso', 'img', 'vhd', 'vhdx',
  'pem', 'key', 'p12', 'pfx', 'jks', 'keystore', 'kdbx', 'ppk',
];

/** Globs of file names that hold credentials, denied as attachments. */
export const DEFAULT_BLOCKED_NAMES = [
  'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*', '.env', '.env.*', '*.env', 'credentials', 'credentials.*',
  '.npmrc', '.pypirc', '.netrc', '.git-credentials', '.pgpass', 'shadow', 'kubeconfig', '*.kubeconfig',
];

/**
 * Built-in credential detectors (setting `detect_secrets`): each a pattern
 * for a well-documented token format and the name used in the reason (the
 * match itself is never echoed).
 */
export const SECRET_PATTERNS = [
  ['an AWS access key id', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['a private key', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  ['a GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/],
  ['a Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/],
  ['a Stripe secret key', /\b[rs]k_live_[A-Za-z0-9]{16,}\b/],
  ['a Google API key', /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/],
  ['an OpenAI API key', /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/],
  ['a JSON Web Token', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
];

const RULE_ID = /^[a-z0-9][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+$/;
const DOMAIN = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/;
const HANDLE = /^@[\w.-]+$/u;
const ACTIONS = ['deny', 'escalate', 'allow'];

// ---------------------------------------------------------------- address parsing (RFC 5322, leniently)

/**
 * Split an address list at top-level `,` and `;`, respecting quoted strings
 * (`"Smith, Bob" <bob@x.com>`), comments in parentheses and angle brackets.
 * Empty items are dropped.
 * @param {string} text
 * @returns {string[]}
 */
export function splitAddressList(text) {
  const items = [];
  let current = '';
  let quoted = false;
  let comment = 0;
  let angle = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ((quoted || comment > 0) && c === '\\' && i + 1 < text.length) {
      current += c + text[++i];
      continue;
    }
    if (quoted) {
      if (c === '"') quoted = false;
    } else if (comment > 0) {
      if (c === '(') comment++;
      else if (c === ')') comment--;
    } else if (c === '"') quoted = true;
    else if (c === '(') comment++;
    else if (c === '<') angle++;
    else if (c === '>' && angle > 0) angle--;
    else if ((c === ',' || c === ';') && angle === 0) {
      if (current.trim()) items.push(current.trim());
      current = '';
      continue;
    }
    current += c;
  }
  if (current.trim()) items.push(current.trim());
  return items;
}

/** `text` without comments in parentheses (outside quoted strings). */
function stripComments(text) {
  let out = '';
  let quoted = false;
  let comment = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ((quoted || comment > 0) && c === '\\' && i + 1 < text.length) {
      if (!comment) out += c + text[i + 1];
      i++;
      continue;
    }
    if (comment > 0) {
      if (c === '(') comment++;
      else if (c === ')') comment--;
      continue;
    }
    if (c === '"') quoted = !quoted;
    else if (c === '(' && !quoted) {
      comment = 1;
      continue;
    }
    out += c;
  }
  return out;
}

/** Index of the first `ch` outside quoted strings, or -1. */
function indexOutsideQuotes(text, ch) {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && quoted) i++;
    else if (text[i] === '"') quoted = !quoted;
    else if (text[i] === ch && !quoted) return i;
  }
  return -1;
}

/**
 * Normalise a domain for comparison: lower case, no trailing dot,
 * internationalised names in their ASCII (punycode) form. Domain literals
 * (`[192.0.2.1]`) are kept as written. Returns null for a domain that is
 * not a host name.
 * @param {string} domain
 */
export function normalizeDomain(domain) {
  let d = domain.trim().toLowerCase().replace(/\.+$/, '');
  if (d.startsWith('[') && d.endsWith(']')) return d;
  if (!d) return null;
  if (/[^\x00-\x7f]/.test(d)) {
    try {
      d = new URL(`http://${d}/`).hostname;
    } catch {
      return null;
    }
  }
  return DOMAIN.test(d) ? d : null;
}

/**
 * Parse one recipient: a bare address (`bob@x.com`), a name-addr
 * (`Bob <bob@x.com>`, `"Smith, Bob" <bob@x.com>`), a `mailto:` URI, or
 * a group (`Team: a@x.com`; only its first member is read, callers split
 * lists first). Anything without `@` (a phone number, `#channel`, a user
 * id) and chat handles (`@bob`) are `{ kind: 'other' }`; text with `@` that
 * is no valid address is `{ kind: 'invalid' }`, and so is a local part with
 * an unquoted space, `@` or `%` (the percent hack). For addresses the domain is
 * the part after the last `@`, normalised (see `normalizeDomain`), so a
 * display name or quoted local part that looks like another address does
 * not count.
 * @param {string} text
 * @returns {{kind: 'email', address: string, domain: string} | {kind: 'other', text: string} | {kind: 'invalid', text: string}}
 */
export function parseRecipient(text) {
  let s = stripComments(text).trim();
  const colon = indexOutsideQuotes(s, ':');
  const lt = indexOutsideQuotes(s, '<');
  if (colon >= 0 && (lt < 0 || colon < lt) && !/^mailto:/i.test(s)) {
    const label = s.slice(0, colon);
    if (!label.includes('@')) s = s.slice(colon + 1).trim();
  }
  const open = s.lastIndexOf('<');
  if (open >= 0 && indexOutsideQuotes(s, '<') >= 0) {
    const close = s.indexOf('>', open);
    s = s.slice(open + 1, close < 0 ? undefined : close).trim();
  }
  s = s.replace(/^mailto:/i, '').replace(/\?.*$/, '').trim();
  if (!s.includes('@')) return { kind: 'other', text: s };
  if (HANDLE.test(s)) return { kind: 'other', text: s };
  const at = s.lastIndexOf('@');
  const local = s.slice(0, at);
  const domain = normalizeDomain(s.slice(at + 1));
  // Outside quotes, a local part has no spaces, no second `@` (`eve@evil.com@acme.com`, source
  // routes) and no `%` (the percent hack relays `eve%evil.com@acme.com` on to evil.com).
  const bare = local.replace(/"(?:[^"\\]|\\.)*"/g, '');
  if (!local || /[\s@%]/.test(bare) || !domain) return { kind: 'invalid', text: s };
  return { kind: 'email', address: `${local}@${domain}`, domain };
}

/**
 * Every recipient in one argument value: strings (address lists are
 * split), arrays, and objects carrying the address in `email`, `address`,
 * `emailAddress` or `mail` (e.g. Microsoft Graph's
 * `{emailAddress: {address}}`). An object without one is invalid.
 * @returns {{field: string, parsed: ReturnType<typeof parseRecipient>}[]}
 */
export function recipientsIn(value, field) {
  const out = [];
  const walk = (v, p) => {
    if (typeof v === 'string') {
      for (const item of splitAddressList(v)) {
        const parsed = parseRecipient(item);
        if (parsed.kind !== 'other' || parsed.text) out.push({ field: p, parsed });
      }
    } else if (typeof v === 'number') {
      out.push({ field: p, parsed: { kind: 'other', text: String(v) } }); // e.g. a phone number
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${p}[${i}]`));
    } else if (v && typeof v === 'object') {
      const key = ['email', 'address', 'emailAddress', 'mail'].find((k) => Object.hasOwn(v, k));
      if (key) walk(v[key], `${p}.${key}`);
      else out.push({ field: p, parsed: { kind: 'invalid', text: 'an object without an email or address' } });
    } else if (v !== null && v !== undefined) {
      out.push({ field: p, parsed: { kind: 'invalid', text: String(v) } });
    }
  };
  walk(value, field);
  return out;
}

// ---------------------------------------------------------------- attachments

/**
 * The file name of an attachment reference: the last path segment of a
 * path or URL (query and fragment removed, percent-escapes decoded),
 * without the trailing dots and spaces Windows ignores.
 * @param {string} ref
 */
export function attachmentName(ref) {
  let s = ref.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    s = s.replace(/[?#].*$/, '');
    try {
      s = decodeURIComponent(s);
    } catch {
      // keep the raw text
    }
  }
  const name = s.split(/[/\\]/).pop() ?? '';
  return name.replace(/[. ]+$/, '');
}

/** Every attachment file name in one argument value (strings, arrays, objects with a name, path or URL). */
export function attachmentsIn(value) {
  const out = [];
  const walk = (v) => {
    if (typeof v === 'string') out.push(attachmentName(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const k of ['filename', 'file_name', 'fileName', 'name', 'path', 'url']) {
        if (typeof v[k] === 'string') out.push(attachmentName(v[k]));
      }
    }
  };
  walk(value);
  return out.filter(Boolean);
}

// ---------------------------------------------------------------- the host's facts

/** The reference tokens of JSON Pointer `pointer` (RFC 6901), or null when it is not one. */
export function pointerTokens(pointer) {
  if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) return null;
  return pointer === '' ? [] : pointer.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value `tokens` name inside `value` as `{ found, value }`. */
function valueAt(value, tokens) {
  for (const token of tokens) {
    if (Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(token) && Number(token) < value.length) value = value[Number(token)];
    else if (value && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, token)) value = value[token];
    else return { found: false, value: undefined };
  }
  return { found: true, value };
}

/**
 * The recipients the host found (`recipient` role values of `facts`) that
 * are not inside one of the arguments `read` (the keys the check's own
 * `recipient_fields` already gave), each read from the arguments at its
 * pointer (so a number stays a number) or, when the pointer does not
 * resolve, from the value's text. Each pointer once; `field` is the pointer.
 */
export function factRecipients(facts, args, read) {
  const out = [];
  const seen = new Set();
  for (const r of facts?.roles ?? []) {
    if (r.role !== 'recipient' || seen.has(r.pointer)) continue;
    seen.add(r.pointer);
    const tokens = pointerTokens(r.pointer);
    if (tokens?.length && read.has(tokens[0])) continue;
    const at = tokens ? valueAt(args, tokens) : { found: false };
    out.push(...recipientsIn(at.found ? at.value : r.value, r.pointer || '/'));
  }
  return out;
}

/**
 * The texts the host found sent (`outbound-content` role values of
 * `facts`) that are not inside one of the arguments `read` (the keys the
 * check's own content fields already gave), as `[pointer, text]` pairs:
 * the content of a call made through another tool (`use_mcp_tool`), or
 * under a name the settings do not list.
 */
export function factTexts(facts, read) {
  const out = [];
  for (const r of facts?.roles ?? []) {
    if (r.role !== 'outbound-content' || typeof r.value !== 'string') continue;
    const tokens = pointerTokens(r.pointer);
    if (tokens?.length && read.has(tokens[0])) continue;
    out.push([r.pointer || '/', r.value]);
  }
  return out;
}

// ---------------------------------------------------------------- the check

const contentRule = t.object({
  pattern: t.string(),
  flags: t.string(''),
  rule: t.string('message.blocked-content'),
  message: t.string(),
  action: t.oneOf(['deny', 'escalate'], 'deny'),
  fields: t.optional(t.list(t.string())),
});

/** Vets outgoing messages: recipients, attachments and content. */
/**
 * A key as the host compares keys (`toolvet::fold`): NFKC, upper- then
 * lower-case, without white space, format (invisible) characters or the
 * combining dot of `İ`. A tool may read `To`, `ATTACHMENTS` or `ｔｏ` as
 * the field the settings name.
 */
// White space, the format (Cf) characters and the combining dot above,
// spelled out: the component's regular expressions lack `\p{…}` classes.
const FOLD_DROPPED =
  /[\s\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\u0307\u{110BD}\u{110CD}\u{13430}-\u{1343F}\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0001}\u{E0020}-\u{E007F}]/gu;

function fold(key) {
  // The component's engine has no `normalize` (no ICU): there, full-width
  // forms (`ｔｏ`), NFKC's most common look-alikes, are mapped by hand.
  const nfkc =
    typeof key.normalize === 'function'
      ? key.normalize('NFKC')
      : key.replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
  return nfkc
    .toUpperCase()
    .toLowerCase()
    .replace(FOLD_DROPPED, '');
}

/**
 * The keys of `args` that are `field` by their fold (the host refuses two
 * that fold alike, so at most one besides an exact match).
 */
function keysFor(args, field) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [];
  const want = fold(field);
  return Object.keys(args).filter((k) => k === field || fold(k) === want);
}

export class MessageGuard extends Check {
  static name = 'message-guard';
  static version = '0.2.0';
  static description = 'Vets outgoing messages: recipient domains, recipient count, attachments and content';
  static tools = DEFAULT_TOOLS;
  static effects = EFFECTS;
  static settings = {
    recipient_fields: t.list(t.string(), DEFAULT_RECIPIENT_FIELDS),
    allowed_domains: t.list(t.string(), []),
    internal_domains: t.list(t.string(), []),
    external_recipients: t.oneOf(ACTIONS, 'escalate'),
    max_recipients: t.optional(t.integer(undefined, { min: 1 }), 20),
    attachment_fields: t.list(t.string(), DEFAULT_ATTACHMENT_FIELDS),
    blocked_extensions: t.list(t.string(), DEFAULT_BLOCKED_EXTENSIONS),
    blocked_names: t.list(t.string(), DEFAULT_BLOCKED_NAMES),
    content_fields: t.list(t.string(), DEFAULT_CONTENT_FIELDS),
    content_rules: t.list(contentRule, []),
    detect_secrets: t.boolean(true),
    principal_is_internal: t.boolean(true),
  };

  constructor(settings) {
    super(settings);
    const domains = (key) =>
      settings[key].map((d, i) => {
        const n = normalizeDomain(d.replace(/^(?:\*\.|@|\.)/, ''));
        if (!n) throw new SettingsError(`settings.${key}[${i}]: ${JSON.stringify(d)} is not a domain name`);
        return n;
      });
    this.allowed = domains('allowed_domains');
    this.internal = domains('internal_domains');
    this.blockedExtensions = new Set(
      settings.blocked_extensions.map((e, i) => {
        const n = e.trim().toLowerCase().replace(/^\./, '');
        if (!n || /[./\\]/.test(n)) throw new SettingsError(`settings.blocked_extensions[${i}]: ${JSON.stringify(e)} is not a file extension`);
        return n;
      }),
    );
    this.blockedName = globMatcher(settings.blocked_names);
    this.rules = settings.content_rules.map((r, i) => {
      const key = `settings.content_rules[${i}]`;
      if (/[^imsu]/.test(r.flags)) throw new SettingsError(`${key}.flags: only the flags i, m, s and u are allowed (got ${JSON.stringify(r.flags)})`);
      if (!RULE_ID.test(r.rule)) throw new SettingsError(`${key}.rule: ${JSON.stringify(r.rule)} is not a rule id like "message.no-prices"`);
      if (!r.message.trim()) throw new SettingsError(`${key}.message: must not be empty`);
      let re;
      try {
        re = new RegExp(r.pattern, r.flags);
      } catch (e) {
        throw new SettingsError(`${key}.pattern: not a valid regular expression: ${e.message}`);
      }
      // A rule without its own fields reads the content: the content
      // fields and the texts the host found sent.
      return { ...r, re, fields: r.fields ?? settings.content_fields, content: r.fields == null };
    });
  }

  /**
   * Warm-up calls (see `Check.warmUp`): e-mails to an internal and to
   * external recipients with a document, a script, a URL and a key file
   * attached and ordinary text in the subject and body, and a chat
   * message; with no context, as a coding agent's and with a principal. So
   * the address parser, the glob matcher and every content and secret
   * pattern have run before the snapshot.
   */
  warmUp() {
    const internal = `ops@${this.internal[0] ?? 'example.com'}`;
    const mail = (to) => [
      'send_email',
      {
        to,
        cc: ['"Lee, Dana" <dana@example.org>'],
        subject: 'Weekly report 2024-06-14',
        body: WARM_UP_TEXT,
        attachments: ['report.pdf', 'scripts/install.sh', { url: 'https://files.example.com/q3/plan.xlsx?dl=1' }, { path: '/home/alice/.ssh/id_rsa' }],
      },
    ];
    const calls = [
      mail(internal),
      mail(`sam@example.net; ${internal}`),
      ['slack_post_message', { channel: '#platform', text: WARM_UP_TEXT, blocks: [{ text: 'Thanks!' }] }],
    ];
    warmUpWith(this, calls);
    const principal = new Context({ principal: internal });
    for (const [tool, args] of calls) this.check(new ToolCall(tool, JSON.stringify(args)), new ToolInfo(), principal);
    // As a 0.2 host calls it: with facts, recipients nested and at the top.
    const facts = {
      effects: new Set(['outbound-message']),
      irreversible: true,
      protectedTarget: false,
      roles: [
        { role: 'recipient', pointer: '/message/to/0', value: internal, dialect: null },
        { role: 'recipient', pointer: '/message/bcc/0/email', value: 'sam@example.net', dialect: null },
        { role: 'recipient', pointer: '/cc', value: '"Lee, Dana" <dana@example.org>', dialect: null },
      ],
      source: { tag: 'inferred', val: ['name verb "notify": outbound-message'] },
    };
    const nested = { cc: '"Lee, Dana" <dana@example.org>', message: { to: [internal], bcc: [{ email: 'sam@example.net' }], body: WARM_UP_TEXT } };
    this.check(new ToolCall('notify_team', JSON.stringify(nested)), new ToolInfo({ facts }), principal);
  }

  /** Whether `domain` is `entry` or one of its subdomains, for any entry of `list`. */
  static inDomains(domain, list) {
    return list.some((entry) => domain === entry || domain.endsWith(`.${entry}`));
  }

  /** The internal domains for a call: the settings', plus the principal's own e-mail domain (`principal_is_internal`). */
  internalFor(ctx) {
    const principal = this.settings.principal_is_internal && typeof ctx?.principal === 'string' ? ctx.principal : '';
    const at = principal.lastIndexOf('@');
    const own = at > 0 ? normalizeDomain(principal.slice(at + 1)) : null;
    return own && !this.internal.includes(own) ? [...this.internal, own] : this.internal;
  }

  check(call, tool, ctx) {
    const facts = tool?.facts ?? null;
    // A 0.2 host's facts add calls (any tool they find sending) and
    // recipients; they never take a call away from the name globs: a tool's
    // name can be made to look like a catalogued read (review s21 F1).
    const args = call.json;
    const s = this.settings;
    const findings = [];
    const internal = this.internalFor(ctx);

    // Recipients: the recipient fields, and the recipients the host found
    // anywhere else in the arguments (nested, or under a name the settings
    // do not list).
    const recipients = [];
    const read = new Set();
    for (const field of s.recipient_fields) {
      for (const key of keysFor(args, field)) {
        read.add(key);
        recipients.push(...recipientsIn(args[key], key));
      }
    }
    if (facts) recipients.push(...factRecipients(facts, args, read));
    const invalid = recipients.filter((r) => r.parsed.kind === 'invalid');
    if (invalid.length) {
      const where = invalid.slice(0, 3).map((r) => `${r.field} (${JSON.stringify(r.parsed.text.slice(0, 60))})`);
      findings.push(
        deny(
          'message.invalid-recipient',
          `cannot read the recipient in ${where.join(', ')}; give addresses as name@domain, optionally with a display name like "Bob <bob@example.com>".`,
        ),
      );
    }
    const emails = recipients.filter((r) => r.parsed.kind === 'email').map((r) => r.parsed);
    if (this.allowed.length) {
      const outside = unique(emails.filter((e) => !MessageGuard.inDomains(e.domain, this.allowed)).map((e) => e.domain));
      if (outside.length) {
        findings.push(
          deny(
            'message.domain-not-allowed',
            `messages may only go to ${listed(this.allowed)}; not to ${listed(outside)}. Remove those recipients.`,
          ),
        );
      }
    }
    if (this.internal.length && s.external_recipients !== 'allow') {
      const external = unique(emails.filter((e) => !MessageGuard.inDomains(e.domain, internal)).map((e) => e.address));
      if (external.length) {
        const message = `the message goes outside ${listed(internal)}, to ${listed(external)}${
          s.external_recipients === 'escalate' ? '; a person must approve it.' : '; send it only to internal recipients.'
        }`;
        findings.push(
          s.external_recipients === 'deny'
            ? deny('message.external-recipient', message)
            : escalate('message.external-recipient', message),
        );
      }
    }
    const count = unique(
      recipients.map((r) => (r.parsed.kind === 'email' ? r.parsed.address.toLowerCase() : `${r.parsed.kind}:${r.parsed.text}`)),
    ).length;
    if (s.max_recipients !== null && count > s.max_recipients) {
      findings.push(
        escalate(
          'message.too-many-recipients',
          `the message has ${count} recipients, more than ${s.max_recipients}; a person must approve a mass mailing.`,
        ),
      );
    }

    // Attachments.
    const names = [];
    for (const field of s.attachment_fields) {
      for (const key of keysFor(args, field)) names.push(...attachmentsIn(args[key]));
    }
    const blocked = names.filter((n) => this.blockedExtensions.has(extension(n)) || this.blockedName(n));
    if (blocked.length) {
      findings.push(
        deny(
          'message.blocked-attachment',
          `attachments of this type may not be sent: ${listed(unique(blocked))} (executables, scripts, disk images, keys and credential files are blocked). Remove them, or share documents instead.`,
        ),
      );
    }

    // Content: the content fields, and (for the rules that read them) the
    // texts the host found sent anywhere else in the arguments.
    const texts = (fields, content) => {
      const keys = fields.flatMap((f) => keysFor(args, f));
      const found = keys.flatMap((k) => stringsIn(args[k], k));
      return content && facts ? [...found, ...factTexts(facts, new Set(keys))] : found;
    };
    for (const rule of this.rules) {
      const hit = texts(rule.fields, rule.content).find(([, text]) => rule.re.test(text));
      if (hit) {
        const message = `${rule.message} (in ${hit[0]})`;
        findings.push(rule.action === 'deny' ? deny(rule.rule, message) : escalate(rule.rule, message));
      }
    }
    if (s.detect_secrets) {
      for (const [path, text] of texts(s.content_fields, true)) {
        const found = SECRET_PATTERNS.find(([, re]) => re.test(text));
        if (found) {
          findings.push(
            deny(
              'message.secret-in-content',
              `${path} contains what looks like ${found[0]}; never send credentials in messages. Remove it and refer to the secret by name instead.`,
            ),
          );
          break;
        }
      }
    }

    // The first deny, else the first escalate, else allow.
    return findings.find((d) => d.kind === 'deny') ?? findings.find((d) => d.kind === 'escalate') ?? allow();
  }
}

/** The lower-case last extension of a file name (`a.tar.GZ` -> `gz`), or '' when it has none. */
export function extension(name) {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

function unique(items) {
  return [...new Set(items)];
}

function listed(items, max = 5) {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
