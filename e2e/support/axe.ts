/** Accessibility audits with axe, run on a page at rest. */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * Waits until every finite animation and CSS transition of the page has finished: a button that was just
 * enabled fades its colours in for a quarter of a second, and axe would measure the contrast half-way.
 * Endless ones (a spinner) are left running.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const finite = document
      .getAnimations()
      .filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime ?? Infinity));
    await Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
  });
}

/**
 * The violations axe finds on the settled page (or the part `include` selects), one line each with the
 * offending markup and why. By default only serious and critical ones; `every: true` keeps every impact.
 */
export async function axeViolations(
  page: Page,
  options: { include?: string; every?: boolean } = {},
): Promise<string[]> {
  await settled(page);
  const builder = new AxeBuilder({ page });
  if (options.include) builder.include(options.include);
  const results = await builder.analyze();
  return results.violations
    .filter((v) => options.every || v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => `${n.html} (${n.failureSummary ?? ''})`).join(', ')}`,
    );
}
