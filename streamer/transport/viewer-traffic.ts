/**
 * What a viewer may send on its data channels, and how fast. Each message is parsed and checked (the bounds of
 * protocol/data-channels.ts), then takes a token of its channel's bucket; a malformed message, or one over the
 * viewer's rate, is dropped and counted, never handed to the application. Parsing a message costs a few
 * microseconds; what the application does with it (X input, an encoder restart, an answer) costs more, and is
 * what the rate bounds.
 *
 * The rates are well above what a person at a browser sends: pointer moves come once a display frame (up to
 * 240 a second on fast screens), with wheel and key events on top; `messages` carries a clipboard, a stage to
 * open, a query now and then. A hostile viewer that sends 100,000 events at once gets the burst and then the
 * rate; the rest is dropped at the cost of its parsing.
 */
import {
  MAX_MESSAGE_LENGTH,
  parseAppMessage,
  parseInput,
  type AppMessage,
  type InputEvent,
} from '../../protocol/data-channels.ts';

/** A token bucket's figures: `perSecond` on average, up to `burst` at once. */
export interface Rate {
  perSecond: number;
  burst: number;
}

/** `input` events a viewer may send. */
export const INPUT_RATE: Rate = { perSecond: 500, burst: 1_000 };
/** `messages` events a viewer may send. */
export const MESSAGES_RATE: Rate = { perSecond: 50, burst: 100 };

/** Why a message was dropped. */
export type Drop = 'malformedInput' | 'inputOverRate' | 'malformedMessages' | 'messagesOverRate';

/** Messages dropped, by why. */
export type DropCounts = Record<Drop, number>;

/** No drops yet. */
export function noDrops(): DropCounts {
  return { malformedInput: 0, inputOverRate: 0, malformedMessages: 0, messagesOverRate: 0 };
}

/** A bucket of `burst` tokens, refilled at `perSecond`; `now` in milliseconds, injectable for tests. */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly rate: Rate,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = rate.burst;
    this.refilledAt = now();
  }

  /** Takes one token; false when there is none. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(
      this.rate.burst,
      this.tokens + ((now - this.refilledAt) / 1000) * this.rate.perSecond,
    );
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** One viewer's two channels: their parsers and buckets, and where drops are reported. */
export class ViewerTraffic {
  private readonly input: TokenBucket;
  private readonly messages: TokenBucket;

  constructor(
    private readonly dropped: (why: Drop) => void,
    now?: () => number,
  ) {
    this.input = new TokenBucket(INPUT_RATE, now);
    this.messages = new TokenBucket(MESSAGES_RATE, now);
  }

  /** The event an `input` message holds, or null when it is dropped. */
  inputEvent(data: unknown): InputEvent | null {
    const event = parseInput(data);
    if (!event) return this.drop('malformedInput');
    return this.input.take() ? event : this.drop('inputOverRate');
  }

  /** The event a `messages` message holds, or null when it is dropped. */
  appMessage(data: unknown): AppMessage | null {
    const message = parseAppMessage(data, MAX_MESSAGE_LENGTH);
    if (!message) return this.drop('malformedMessages');
    return this.messages.take() ? message : this.drop('messagesOverRate');
  }

  private drop(why: Drop): null {
    this.dropped(why);
    return null;
  }
}
