import { act, render, screen } from '@testing-library/react';
import { Suspense, type ReactElement } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { answered, useFakeTime } from '../test/fake-time';
import { optionalLazy } from './optional-lazy';

const unreachable = () =>
  new TypeError('Failed to fetch dynamically imported module: http://portal.test/assets/extra.js');

function Extra({ label }: { label: string }) {
  return <button type="button">{label}, the real one</button>;
}
function Plain({ label }: { label: string }) {
  return <span>{label}, without its extras</span>;
}

function renderIn(element: ReactElement) {
  return render(<Suspense fallback={<p>Loading</p>}>{element}</Suspense>);
}

describe('optionalLazy', () => {
  it('renders the component once its code has come', async () => {
    const Optional = optionalLazy(() => Promise.resolve({ default: Extra }), Plain);
    renderIn(<Optional label="Hint" />);
    expect(await screen.findByRole('button', { name: 'Hint, the real one' })).toBeInTheDocument();
  });

  it('renders the fallback, not an error, when its code cannot be downloaded', async () => {
    const Optional = optionalLazy<{ label: string }>(() => Promise.reject(unreachable()), Plain);
    renderIn(<Optional label="Hint" />);
    expect(await screen.findByText('Hint, without its extras')).toBeInTheDocument();
  });

  it('tries once per mount while its code cannot be downloaded, not again and again', async () => {
    // The clock stands still until the fallback shows, then is moved on by hand: a retry on a timer would come.
    useFakeTime();
    const load = vi.fn(() => Promise.reject<{ default: typeof Extra }>(unreachable()));
    const Optional = optionalLazy(load, Plain);
    renderIn(<Optional label="Hint" />);
    await answered(() => screen.getByText('Hint, without its extras'));
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('loads again at its next mount, and a mounted fallback stays put meanwhile', async () => {
    const load = vi
      .fn<() => Promise<{ default: typeof Extra }>>()
      .mockRejectedValueOnce(unreachable())
      .mockResolvedValue({ default: Extra });
    const Optional = optionalLazy(load, Plain);

    const first = renderIn(<Optional label="Menu" />);
    const plain = await screen.findByText('Menu, without its extras');
    // A render of the mounted one (new props) neither loads again nor replaces what is on screen.
    first.rerender(
      <Suspense fallback={<p>Loading</p>}>
        <Optional label="Menu" />
      </Suspense>,
    );
    await act(() => Promise.resolve());
    expect(screen.getByText('Menu, without its extras')).toBe(plain);
    expect(load).toHaveBeenCalledTimes(1);
    first.unmount();

    renderIn(<Optional label="Menu" />);
    expect(await screen.findByRole('button', { name: 'Menu, the real one' })).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);

    // Once loaded, it stays loaded: later mounts do not ask again.
    renderIn(<Optional label="Again" />);
    expect(await screen.findByRole('button', { name: 'Again, the real one' })).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);
  });
});
