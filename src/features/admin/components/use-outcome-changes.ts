import { useEffect, useReducer } from 'react';
import { subscribeOutcomes } from '../api/try-outcomes';

/** Renders the component again whenever a Try records an outcome, here or in another tab. */
export function useOutcomeChanges(): void {
  const [, changed] = useReducer((n: number) => n + 1, 0);
  useEffect(() => subscribeOutcomes(changed), []);
}
