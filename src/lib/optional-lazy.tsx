/**
 * React.lazy for a part of a page that the page can do without (a tooltip, a richer field, a menu): when its
 * chunk cannot be downloaded, because the server went away between the page and its extras, `fallback`
 * renders in its place. With a plain lazy the failure would reach the route's error boundary and take the
 * whole page, its navigation included, down with a decoration.
 *
 * React.lazy keeps a failure for good, so a failed load is tried again by the next mount (the next time a
 * menu opens, the next visit to a page). A mounted one keeps what it rendered: it does not swap its fallback
 * for the real thing under the person's pointer or focus.
 */
import { lazy, useEffect, useState, type ComponentType, type LazyExoticComponent } from 'react';

/** A lazily loaded component that renders `fallback` when its code cannot be loaded. */
export function optionalLazy<P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
  fallback: ComponentType<P>,
): ComponentType<P> {
  const Fallback = fallback;
  const attempt = (): LazyExoticComponent<ComponentType<P>> => {
    function Failed(props: P) {
      // Only once the fallback is on screen: a mount that suspended is rendered again from scratch when its
      // code settles, and must meet this failed attempt then, not start another one (and another).
      useEffect(() => {
        if (current === thisAttempt) current = attempt();
      }, []);
      return <Fallback {...props} />;
    }
    const thisAttempt = lazy(() => load().catch(() => ({ default: Failed })));
    return thisAttempt;
  };
  let current = attempt();

  function OptionalLazy(props: P) {
    const [Component] = useState(() => current);
    return <Component {...props} />;
  }
  return OptionalLazy;
}

/**
 * A `fallback` for `optionalLazy` that renders nothing and calls the callback that its props hold under
 * `prop`: a menu or drawer whose code cannot be downloaded closes itself that way, and its next opening
 * loads it anew. Typed as a plain function component so that it fits any props that hold that callback
 * (a ComponentType of fewer props would not), and a misspelt `prop` does not compile.
 */
export function callsWhenUnavailable<K extends string>(prop: K): (props: Record<K, () => void>) => null {
  function Unavailable(props: Record<K, () => void>) {
    const callback = props[prop];
    useEffect(() => callback(), [callback]);
    return null;
  }
  return Unavailable;
}
