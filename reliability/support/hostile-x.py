"""A hostile X client for reliability/x-server.test.ts: run as a session's program, it makes its X server work
for it (Xlib through ctypes, no module beyond Python's own) and says on its error output what happened, one line
each, as hostile-program.sh does:
    escape <name>: refused <how>      or      escape <name>: ALLOWED <what it got>
then "hostile-x: done". The first argument says what it tries:
    pixmaps     8192x8192 pixmaps, each filled, until the server is gone or refuses
    font-path   XSetFontPath to a font folder of its own /tmp, through the host's /proc (its own pid on the host,
                which the test writes into ./host-pid) and the X server's own
    copy-loop   a pixmap (4096x4096 unless the second argument says) filled and copied for ever: the X server's CPU
    environ     every /proc/*/environ it can read
"""
import ctypes
import os
import sys
import time


def say(line):
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


X = ctypes.CDLL("libX11.so.6")
X.XOpenDisplay.restype = ctypes.c_void_p
X.XOpenDisplay.argtypes = [ctypes.c_char_p]
X.XDefaultRootWindow.restype = ctypes.c_ulong
X.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
X.XCreatePixmap.restype = ctypes.c_ulong
X.XCreatePixmap.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint]
X.XCreateGC.restype = ctypes.c_void_p
X.XCreateGC.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_void_p]
X.XFillRectangle.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p] + [ctypes.c_int] * 2 + [ctypes.c_uint] * 2
X.XCopyArea.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_void_p] + [ctypes.c_int] * 2
X.XCopyArea.argtypes += [ctypes.c_uint] * 2 + [ctypes.c_int] * 2
X.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
X.XSetFontPath.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
X.XGetFontPath.restype = ctypes.POINTER(ctypes.c_char_p)
X.XGetFontPath.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]


class XErrorEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("resourceid", ctypes.c_ulong),
        ("serial", ctypes.c_ulong),
        ("error_code", ctypes.c_ubyte),
        ("request_code", ctypes.c_ubyte),
        ("minor_code", ctypes.c_ubyte),
    ]


ERROR_NAMES = {2: "BadValue", 11: "BadAlloc", 10: "BadAccess", 16: "BadLength", 17: "BadImplementation"}
errors = []
HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(XErrorEvent))


def on_error(_display, event):
    code = event.contents.error_code
    errors.append(ERROR_NAMES.get(code, "error %d" % code))
    return 0


handler = HANDLER(on_error)
X.XSetErrorHandler(handler)

display = X.XOpenDisplay(None)
if not display:
    say("hostile-x: no display")
    sys.exit(1)
root = X.XDefaultRootWindow(display)


def pixmaps():
    gc = None
    for i in range(1, 41):
        pixmap = X.XCreatePixmap(display, root, 8192, 8192, 24)
        if gc is None:
            gc = X.XCreateGC(display, pixmap, 0, None)
        X.XFillRectangle(display, pixmap, gc, 0, 0, 8192, 8192)
        X.XSync(display, 0)
        if errors:
            say("escape pixmaps: refused (%s after %d)" % (errors[-1], i - 1))
            return
        say("pixmap %d" % i)
    say("escape pixmaps: ALLOWED 40 pixmaps of 256 MB")


def font_path():
    folder = "/tmp/f"
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "fonts.dir"), "w") as f:
        f.write("0\n")
    host_pid = ""
    for _ in range(200):
        host_pid = open("./host-pid").read().strip()
        if host_pid:
            break
        time.sleep(0.1)
    tries = {
        "font-path-host-proc": "/proc/%s/root%s" % (host_pid, folder),
        "font-path-server-proc": "/proc/1/root%s" % folder,
        "font-path-self-proc": "/proc/self/root%s" % folder,
        "font-path-own-tmp": folder,
    }
    for name, where in tries.items():
        del errors[:]
        paths = (ctypes.c_char_p * 1)(where.encode())
        X.XSetFontPath(display, paths, 1)
        X.XSync(display, 0)
        say("escape %s: %s" % (name, "refused (%s)" % errors[-1] if errors else "ALLOWED " + where))
    count = ctypes.c_int()
    now = X.XGetFontPath(display, ctypes.byref(count))
    say("font path now: %s" % ",".join(now[i].decode() for i in range(count.value)))


def copy_loop():
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    first = X.XCreatePixmap(display, root, size, size, 24)
    second = X.XCreatePixmap(display, root, size, size, 24)
    gc = X.XCreateGC(display, first, 0, None)
    say("copy-loop: running")
    while True:
        X.XFillRectangle(display, first, gc, 0, 0, size, size)
        X.XCopyArea(display, first, second, gc, 0, 0, size, size, 0, 0)
        X.XSync(display, 0)


def environ():
    found = set()
    readable = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as f:
                text = f.read()
        except OSError:
            continue
        readable += 1
        for entry in text.split(b"\0"):
            if b"=" in entry:
                found.add(entry.split(b"=", 1)[0].decode(errors="replace"))
    say("environ readable: %d" % readable)
    say("environ names: %s" % " ".join(sorted(found)))


{"pixmaps": pixmaps, "font-path": font_path, "copy-loop": copy_loop, "environ": environ}[sys.argv[1]]()
say("hostile-x: done")
# The session stays until the test ends it: a program that exits would end it first.
while True:
    time.sleep(3600)
