/**
 * Figures of the session machinery (create to ready, end to gone, port allocation, durable saves):
 * `npm run bench -- sessions`, or `npx tsx bench/sessions.ts`.
 */
import '../test-support/bench-sessions.ts';
