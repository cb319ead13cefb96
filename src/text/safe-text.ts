/**
 * Text that is safe to print. Two rules for everything cplane writes to a
 * terminal, a log or a pull-request comment:
 *
 * - Every secret value known to this run is redacted, in its plain form and in
 *   the encoded forms a server or a message could carry it in (base64,
 *   base64url, JSON-escaped). Secrets are registered as they become known: the
 *   API token, the state key, each resolved secret source.
 * - Control characters (C0, DEL, C1) and bidirectional overrides are escaped,
 *   so text from the API or from configuration names cannot move the cursor,
 *   change colours, or make a line read differently from what it says.
 * - Workflow commands are broken: GitHub Actions' runner obeys `##[command]`
 *   anywhere in a line of a step's log and `::command::` at its start, so text
 *   from the account or the configuration (`##[add-mask]`, `::stop-commands::`)
 *   gets a zero-width space inside the marker (`##\u200b[`, `:\u200b:`): a
 *   person reads the same text, the runner reads no command.
 *
 * This is the one place for both; output code calls `safeText` (or
 * `safeLines` for text whose line breaks are its own) on what it prints.
 */

/** What a redacted secret is shown as. */
export const REDACTED = '(sensitive)';

/** Shorter values are not redacted: they would blank out ordinary words and prove nothing. */
const MIN_SECRET_LENGTH = 6;

/**
 * A value this short (under 12 characters), or one word of letters (under 20), will match ordinary text (`checkout`):
 * redacting it blanks out parts of messages and values, and not redacting it (below MIN_SECRET_LENGTH) shows it.
 */
export function isWeakSecret(secret: string): boolean {
  return secret.length < 12 || (secret.length < 20 && /^[a-z]+$/i.test(secret));
}

/** The secret values of a run, and every form of each that is searched for. */
export class Redactor {
  private readonly forms = new Set<string>();
  private pattern: RegExp | undefined;
  private readonly weak = new Set<string>();
  /** Forms matched only when no letter, digit, `_` or `-` touches them (word-like secrets, see isWeakSecret). */
  private readonly wholeWordOnly = new Set<string>();

  /**
   * Registers a secret value: from now on it (and its encodings) never leaves `redact` in clear. `source` says
   * where it came from (`env DB_PASSWORD`), for the warning about a weak one (`takeWeakSources`); never the value.
   */
  register(secret: string | undefined, source?: string): void {
    if (secret !== undefined && source !== undefined && isWeakSecret(secret)) this.weak.add(source);
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) return;
    const bytes = Buffer.from(secret, 'utf8');
    const encodings = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      bytes.toString('base64'),
      bytes.toString('base64url'),
      ...embeddedBase64(bytes),
    ];
    let added = false;
    for (const form of encodings) {
      if (form.length >= MIN_SECRET_LENGTH && !this.forms.has(form)) {
        this.forms.add(form);
        added = true;
      }
    }
    // A word-like secret is redacted only where it stands alone: `checkout` goes, `checkout-assist` stays.
    if (isWeakSecret(secret) && !this.wholeWordOnly.has(secret)) {
      this.wholeWordOnly.add(secret);
      added = true;
    }
    if (added) this.pattern = undefined;
  }

  /** True when at least one secret is registered. */
  get size(): number {
    return this.forms.size;
  }

  /** The text with every registered form replaced by REDACTED (longest forms first, so a form inside another goes too). */
  redact(text: string): string {
    if (this.forms.size === 0) return text;
    this.pattern ??= new RegExp(
      [...this.forms]
        .sort((a, b) => b.length - a.length)
        .map((form) => (this.wholeWordOnly.has(form) ? `(?<![\\w-])${escapeRegExp(form)}(?![\\w-])` : escapeRegExp(form)))
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, REDACTED);
  }

  /**
   * The sources of secrets registered since the last call that are short or word-like (isWeakSecret), in
   * registration order: a command says each once, and a process that runs several (`cplane mcp`) says a later
   * command's own, not an earlier one's again.
   */
  takeWeakSources(): string[] {
    const sources = [...this.weak];
    this.weak.clear();
    return sources;
  }

  /** Forgets every secret (tests). */
  clear(): void {
    this.weak.clear();
    this.wholeWordOnly.clear();
    this.forms.clear();
    this.pattern = undefined;
  }
}

/**
 * The base64 (and base64url) text that the secret becomes inside a larger encoded blob, for each of
 * the three byte offsets it can start at: the characters that also depend on neighbouring bytes
 * are cut off, so what is left appears verbatim wherever the secret was encoded.
 */
function embeddedBase64(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const head = shift === 0 ? 0 : shift + 1;
    const tail = (shift + bytes.length) % 3 === 0 ? 0 : 1;
    const core = encoded.slice(head, encoded.length - tail);
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The redactor of this process: every secret of the run is registered here. */
export const secrets = new Redactor();

/** Registers a secret value of this run with the process's redactor; `source` names where it came from (never the value). */
export function registerSecret(value: string | undefined, source?: string): void {
  secrets.register(value, source);
}

// C0 controls, DEL, C1 controls, and the bidi embeddings/overrides/isolates (U+202A–U+202E, U+2066–U+2069).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };
const escapeOne = (char: string): string => {
  const code = char.charCodeAt(0);
  return named[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
};

/** `##[` anywhere, `::` at the start of a line (after blanks): what the Actions runner reads as a workflow command. */
const WORKFLOW_COMMAND = /##\[|^([ \t]*):(?=:)/gm;

/** The text with every workflow-command marker broken by a zero-width space (see the top of this file). */
export function withoutWorkflowCommands(text: string): string {
  return text.replace(WORKFLOW_COMMAND, (marker, blanks: string | undefined) => (blanks === undefined ? '##\u200b[' : `${blanks}:\u200b`));
}

/**
 * One line of untrusted text: every control character (line breaks included) and bidi override escaped, e.g. ESC as
 * `\e`, U+202E as `\u202e`, and no workflow command.
 */
export function escapeControl(text: string): string {
  return withoutWorkflowCommands(escapeControlCharacters(text));
}

/** Control characters and bidi overrides escaped, nothing else: for a caller that breaks workflow commands its own way. */
export function escapeControlCharacters(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/**
 * A name (an address, a local name, a kind, a workspace): escaped but never redacted. Names are not secret, and a
 * short secret that happens to match part of one (`checkout` in an address such as `KIND.checkout/db-password`) must not garble it.
 */
export function safeName(name: string): string {
  return escapeControl(name);
}

/** Redacted and escaped: for a single line of text (a reason, a request id, a value, a message). */
export function safeText(text: string): string {
  return escapeControl(secrets.redact(text));
}

/** Redacted and escaped, keeping line breaks and tabs: for a multi-line message cplane composed itself. */
export function safeLines(text: string): string {
  return withoutWorkflowCommands(secrets.redact(text).replace(UNSAFE_BUT_LINE_BREAKS, escapeOne));
}
