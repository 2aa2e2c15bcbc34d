// The `x11` package ships JavaScript without types; streamer/display/x-client.ts wraps the few requests
// it uses behind typed methods, so that its loose shapes stay in that one file.
declare module 'x11';
