/**
 * The pull-request comments that hold a plan: each one starts with a hidden
 * marker naming the configuration and workspace it is for (and its part), so
 * the next run updates the same comments instead of adding new ones. GitHub
 * refuses a comment body above 65,536 characters: a longer plan is split at
 * line ends, and a code block cut by the split is closed and opened again.
 */
import { htmlComment } from '../text/escape-for.js';

export const COMMENT_LIMIT = 65_536;

/** Room kept in each part for the marker and the "part i of n" line. */
const OVERHEAD = 400;

export function markerOf(key: string, part: number): string {
  return `<!-- cplane-plan key="${htmlComment({ name: key })}" part="${part}" -->`;
}

/** The key and part of a comment written by cplane, or undefined for any other comment. */
export function parseMarker(body: string): { key: string; part: number } | undefined {
  const match = /^<!-- cplane-plan key="([^"]*)" part="(\d+)" -->/.exec(body);
  if (!match) return undefined;
  try {
    return { key: decodeURIComponent(match[1] as string), part: Number(match[2]) };
  } catch {
    return undefined;
  }
}

/** The comment bodies for `markdown`: one when it fits, else several, each within `limit` characters. */
export function splitComment(markdown: string, key: string, limit = COMMENT_LIMIT): string[] {
  const room = limit - OVERHEAD;
  const chunks: string[] = [];
  let current = '';
  let fence: string | undefined;
  const flush = () => {
    chunks.push(fence ? `${current}\`\`\`\n` : current);
    current = fence ? `${fence}\n` : '';
  };
  for (const whole of markdown.split(/(?<=\n)/)) {
    // A single line longer than a comment is cut into pieces (only a pathological value does this).
    for (let line = whole; line.length > 0;) {
      const piece = line.slice(0, room - 8);
      line = line.slice(piece.length);
      if (current.length + piece.length > room - (fence ? 4 : 0) && current.trim() !== (fence ?? '')) flush();
      current += piece;
      if (/^```/.test(piece)) fence = fence ? undefined : piece.trimEnd();
    }
  }
  if (current.length > 0 || chunks.length === 0) chunks.push(current);
  return chunks.map(
    (chunk, i) => `${markerOf(key, i)}\n${chunks.length > 1 ? `_Plan, part ${i + 1} of ${chunks.length}_\n\n` : ''}${chunk}`,
  );
}
