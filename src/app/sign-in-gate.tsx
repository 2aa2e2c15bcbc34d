/**
 * Where the portal signs people in (CONTRACT §22), a person who is not signed in is sent to the identity
 * provider, and comes back to the page they asked for. A shared watch link (section 14) and the provider's
 * way back need no sign-in. After they signed out, or when the provider just sent them back without a sign-in
 * that holds, the page asks instead of sending them round again.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router-dom';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { mustSignIn } from '../lib/auth/credential';
import {
  hasSignedOut,
  maySignInByItself,
  signIn,
  signInByItself,
  SIGN_IN_CALLBACK_PATH,
} from '../lib/auth/sign-in';
import { useSignedInUser } from '../lib/auth/use-signed-in-user';
import { getConfig } from '../lib/config';
import { showToast } from '../lib/toast';

/** Pages anyone may open: a watch link carries what it needs, and the way back completes a sign-in. */
const OPEN_PATHS = ['/watch', SIGN_IN_CALLBACK_PATH];

/** Whether the page at `pathname` needs a sign-in that is missing; re-evaluated as the person signs in or out. */
export function useSignInNeeded(pathname: string): boolean {
  useSignedInUser();
  return mustSignIn(getConfig()) && !OPEN_PATHS.includes(pathname);
}

function problemOf(error: unknown): string {
  return `The sign-in page could not be opened: ${error instanceof Error ? error.message : String(error)}`;
}

/** Opens the provider's sign-in page; a provider that cannot be reached is said in a notice. */
export function openSignIn(returnTo: string): void {
  signIn(returnTo).catch((error: unknown) => showToast(problemOf(error)));
}

function SignInNeeded({ returnTo }: { returnTo: string }) {
  const [byItself] = useState(() => maySignInByItself());
  const [problem, setProblem] = useState<string>();
  const started = useRef(false);
  useEffect(() => {
    if (!byItself || started.current) return;
    started.current = true;
    signInByItself(returnTo).catch((error: unknown) => setProblem(problemOf(error)));
  }, [byItself, returnTo]);

  if (byItself && problem === undefined) return <CircularProgress aria-label="Taking you to sign in" />;
  const signedOut = hasSignedOut();
  return (
    <Stack spacing={2} sx={{ maxWidth: 640 }}>
      <Typography variant="h4" component="h1">
        {signedOut ? 'You have signed out' : 'Sign in to continue'}
      </Typography>
      {problem !== undefined && <Alert severity="error">{problem}</Alert>}
      {problem === undefined && !signedOut && (
        <Alert severity="info">Your sign-in has ended or was not accepted. Sign in again to go on.</Alert>
      )}
      <Button variant="contained" sx={{ alignSelf: 'start' }} onClick={() => openSignIn(returnTo)}>
        Sign in
      </Button>
    </Stack>
  );
}

/** The page, or in its place the way to sign in when it needs one. */
export function SignInGate({ children }: { children: ReactNode }) {
  const { pathname, search, hash } = useLocation();
  if (!useSignInNeeded(pathname)) return children;
  return <SignInNeeded returnTo={`${pathname}${search}${hash}`} />;
}
