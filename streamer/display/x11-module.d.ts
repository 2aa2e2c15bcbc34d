// The `x11` package ships JavaScript without types; x-client.ts (input, windows, clipboard) and capture.ts
// (pixels, cursor) wrap the few requests they use behind typed methods, so that its loose shapes stay there.
declare module 'x11';
// Its descriptor-passing socket (MIT-SHM), for a display reached by its socket's path.
declare module 'x11/lib/fdpass.js';
