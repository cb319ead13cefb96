/**
 * The emulator's clock: the real clock (or the one a test gives) shifted by an
 * offset, so that expiry and due dates can be tried without waiting
 * (`cplane emulator --clock-offset -25d`, `emulator.moveClock('3d')` in a test).
 * Every timestamp the emulator writes, every expiry it checks and the `Date`
 * header of its answers read this clock. The offset is kept in the `--data`
 * file, so a restarted emulator goes on in the same time as the objects it saved.
 */

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;

/**
 * A duration such as `-25d`, `36h`, `1d12h`, `+90m` or `0`, in milliseconds.
 * Throws an Error whose message says what is accepted.
 */
export function parseDuration(text: string): number {
  const match = /^([+-]?)((?:\d{1,6}[dhms])+|0)$/.exec(text.trim());
  if (!match)
    throw new Error(`"${text}" is not a duration: use a number with d, h, m or s, optionally signed and combined (-25d, 36h, 1d12h, 0)`);
  let ms = 0;
  for (const [, amount, unit] of match[2]!.matchAll(/(\d+)([dhms])/g)) ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return match[1] === '-' ? -ms : ms;
}

/** A duration as the shortest text parseDuration reads back: `-25d`, `1d12h`, `0`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  let rest = Math.abs(ms);
  let text = '';
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const amount = Math.floor(rest / size);
    if (amount > 0) text += `${amount}${unit}`;
    rest -= amount * size;
  }
  if (rest > 0) text += `${rest / 1000}s`;
  return `${ms < 0 ? '-' : ''}${text}`;
}

/** A duration given as milliseconds or as text (`36h`). */
export type Duration = number | string;

export const toMs = (duration: Duration): number => (typeof duration === 'number' ? duration : parseDuration(duration));

export class EmulatorClock {
  constructor(
    private readonly base: () => Date,
    private offset = 0,
  ) {}

  now(): Date {
    return new Date(this.base().getTime() + this.offset);
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Sets the offset from the base clock (`-25d`: 25 days behind it). */
  setOffset(duration: Duration): void {
    this.offset = toMs(duration);
  }

  /** Moves the clock by `duration` (negative: back). */
  move(duration: Duration): void {
    this.offset += toMs(duration);
  }
}
