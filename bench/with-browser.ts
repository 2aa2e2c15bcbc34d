/**
 * The frame of a bench that drives the portal: a service with `options` (e2e/support/stack.ts) and Debian's
 * Chromium, both stopped on every way out, and the exit code set when the bench throws.
 */
import { chromium, type Browser } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack, type Stack, type StackOptions } from '../e2e/support/stack';

export function benchWithBrowser(
  options: StackOptions,
  run: (browser: Browser, stack: Stack) => Promise<void>,
): void {
  const main = async () => {
    const stack = await startStack(options);
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch(chromiumLaunchOptions);
      await run(browser, stack);
    } finally {
      try {
        await browser?.close();
      } finally {
        await stack.stop();
      }
    }
  };
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
