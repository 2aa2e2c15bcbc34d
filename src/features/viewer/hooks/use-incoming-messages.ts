import { useEffect, useRef } from 'react';
import type { MessageRecord } from '../../../player';

/**
 * Calls `onMessage` once for each application event that arrives after the first render, in order: the
 * page's log (`messages`) is the one record of them, and grows (and drops its oldest) as they come.
 */
export function useIncomingMessages(
  messages: readonly MessageRecord[],
  onMessage: (message: MessageRecord) => void,
): void {
  const seen = useRef<WeakSet<MessageRecord> | undefined>(undefined);
  const handler = useRef(onMessage);
  useEffect(() => {
    handler.current = onMessage;
  });
  useEffect(() => {
    // What was logged before is old news: an event handled by another part of the page, long ago.
    if (seen.current === undefined) {
      seen.current = new WeakSet(messages);
      return;
    }
    const fresh: MessageRecord[] = [];
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i] as MessageRecord;
      if (seen.current.has(message)) break;
      fresh.unshift(message);
    }
    for (const message of fresh) {
      seen.current.add(message);
      if (message.direction === 'in') handler.current(message);
    }
  }, [messages]);
}
