/**
 * The command lines of a session's sound: the server's flags, the sandboxed shell that starts it before the
 * program, and the capture's. That they work together is sound-server.process.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_SOUND_DIR } from '../../sandbox/bwrap.ts';
import { parecArgs, parecEnv, pulseaudioArgs, SINK, wrapWithSound } from './sound-server.ts';

describe('pulseaudioArgs', () => {
  it('starts a server that reads no configuration, shares no memory and never exits on its own', () => {
    const args = pulseaudioArgs();
    for (const flag of [
      '--daemonize=yes',
      '-n',
      '--system=no',
      '--use-pid-file=no',
      '--exit-idle-time=-1',
      '--disallow-exit',
      '--disable-shm=yes',
      '--realtime=no',
      '--high-priority=no',
    ])
      expect(args).toContain(flag);
    expect(args).toContain(`--log-target=file:${SANDBOX_SOUND_DIR}/log`);
  });

  it('loads a 48 kHz stereo null sink and the socket in the shared folder, open to any client that reaches it', () => {
    const modules = pulseaudioArgs('/run/x').filter((_, i, all) => all[i - 1] === '-L');
    expect(modules).toEqual([
      `module-null-sink sink_name=${SINK} rate=48000 channels=2 format=s16le`,
      'module-native-protocol-unix socket=/run/x/native auth-anonymous=1',
    ]);
  });
});

describe('wrapWithSound', () => {
  it('runs the server, then execs the program with its arguments untouched and the server’s address', () => {
    const { command, env } = wrapWithSound(['xterm', '-e', "it's here"]);
    const [sh, c, script, zero, ...rest] = command;
    expect([sh, c, zero]).toEqual(['/bin/sh', '-c', 'sh']);
    // The program is the shell's own arguments, exec'd: its exit status and error output are its own.
    expect(rest).toEqual(['xterm', '-e', "it's here"]);
    expect(script).toMatch(/; exec "\$@"$/);
    // With none of the program's environment (its display, PATH or PULSE_* settings).
    expect(script).toMatch(
      /^env -i HOME=\/home\/user XDG_RUNTIME_DIR=\/run\/user\/1000 LANG=C.UTF-8 \/usr\/bin\/pulseaudio '--daemonize=yes' /,
    );
    // The server's output goes to its log, not to the program's error output, which says why a session failed.
    expect(script).toContain(`</dev/null >>'${SANDBOX_SOUND_DIR}'/log 2>&1;`);
    // Its verdict is renamed into place whole.
    expect(script).toContain(`mv '${SANDBOX_SOUND_DIR}'/.status '${SANDBOX_SOUND_DIR}'/status`);
    expect(env).toEqual({ PULSE_SERVER: `unix:${SANDBOX_SOUND_DIR}/native` });
  });

  it('quotes every flag as one word of the shell', () => {
    const [, , script] = wrapWithSound(['true'], "/run/it's").command;
    expect(script).toContain(`'module-native-protocol-unix socket=/run/it'\\''s/native auth-anonymous=1'`);
  });
});

describe('parec', () => {
  it('reads the sink’s monitor as raw 48 kHz stereo s16le in 10 ms fragments', () => {
    expect(parecArgs()).toEqual([
      '--raw',
      '--format=s16le',
      '--rate=48000',
      '--channels=2',
      '--latency-msec=30',
      '-d',
      `${SINK}.monitor`,
    ]);
  });

  it('reaches the session’s server and reads no client configuration the program could have written', () => {
    expect(parecEnv('/tmp/streamgate-sound-a')).toEqual({
      PULSE_SERVER: 'unix:/tmp/streamgate-sound-a/native',
      PULSE_CLIENTCONFIG: '/dev/null',
      HOME: '/nonexistent',
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
    });
  });
});
