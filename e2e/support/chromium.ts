/**
 * How Debian's Chromium is launched here, for the end-to-end tests and the benchmarks alike. Playwright's own
 * browser downloads cannot run on these machines; the flags keep Chromium off the network it cannot reach.
 */
import type { LaunchOptions } from 'playwright-core';

export const chromiumLaunchOptions: LaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--autoplay-policy=no-user-gesture-required',
  ],
};
