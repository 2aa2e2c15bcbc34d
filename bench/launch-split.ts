/**
 * One launch through the portal's wizard, as a person clicks it, timed in the page by the browser's own clock: the
 * click, the POST's answer, the viewer's mount, the WHEP answer and the first decoded frame (the player's marks).
 * Shared by the benches that time launches (bench/launch.ts, bench/door.ts).
 */
import type { Page } from 'playwright-core';

export interface Split {
  post: number;
  pending: number;
  connect: number;
  frame: number;
  total: number;
}

/** One launch; returns the split and the session id. */
export async function launchOnce(
  page: Page,
  baseURL: string,
  app: string,
  profile: string,
): Promise<{ split: Split; sessionId: string }> {
  await page.goto(`${baseURL}/launch?app=${app}&profile=${profile}`);
  await page.getByRole('button', { name: 'Review' }).click();
  const launch = page.getByRole('button', { name: 'Launch', exact: true });
  await launch.waitFor();
  // The click is stamped in the page, so that the browser's own clock measures every part.
  await page.evaluate(() => {
    document.addEventListener(
      'click',
      (e) => {
        if ((e.target as Element | null)?.closest('button')?.textContent?.trim() === 'Launch') {
          performance.mark('sg:launch-click');
        }
      },
      { capture: true, once: true },
    );
  });
  await launch.click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 60_000 }).catch(async (error: Error) => {
    // Say what the launch page showed instead (a refusal, a failure), not only that it timed out.
    const shown = await page.getByRole('alert').allTextContents();
    throw new Error(`${app} (${profile}) did not reach the viewer: ${shown.join(' | ') || error.message}`);
  });
  await page.waitForFunction(() => performance.getEntriesByName('sg:first-frame').length > 0, undefined, {
    timeout: 30_000,
  });
  const times = await page.evaluate(() => {
    const at = (name: string) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
    const click = at('sg:launch-click');
    const post = performance
      .getEntriesByType('resource')
      .find((e) => /\/stream$/.test(new URL(e.name).pathname) && e.startTime >= click) as
      PerformanceResourceTiming | undefined;
    return {
      click,
      postEnd: post?.responseEnd ?? NaN,
      mount: at('sg:viewer-mount'),
      answer: at('sg:answer'),
      frame: at('sg:first-frame'),
    };
  });
  const sessionId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  return {
    sessionId,
    split: {
      post: times.postEnd - times.click,
      pending: times.mount - times.postEnd,
      connect: times.answer - times.mount,
      frame: times.frame - times.answer,
      total: times.frame - times.click,
    },
  };
}
