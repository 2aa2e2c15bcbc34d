/**
 * `/signin-callback`: where the identity provider sends the browser back after sign-in (CONTRACT §22). It
 * completes the sign-in and replaces itself with the page the person had asked for, so that neither the code
 * nor the state stays in the address bar or the history.
 */
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { completeSignIn } from '../lib/auth/sign-in';
import { openSignIn } from './sign-in-gate';

/** The provider's words for a refusal (`error_description`), else the client's. */
function problemOf(error: unknown): string {
  const described = (error as { error_description?: unknown } | null)?.error_description;
  if (typeof described === 'string' && described !== '') return described;
  return error instanceof Error ? error.message : String(error);
}

export function SignInCallback() {
  const { pathname, search, hash } = useLocation();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    let live = true;
    const url = new URL(`${pathname}${search}${hash}`, window.location.origin).href;
    completeSignIn(url).then(
      (returnTo) => {
        if (live) void navigate(returnTo, { replace: true });
      },
      (error: unknown) => {
        if (live) setProblem(problemOf(error));
      },
    );
    return () => {
      live = false;
    };
  }, [pathname, search, hash, navigate]);

  if (problem === undefined) return <CircularProgress aria-label="Signing you in" />;
  return (
    <Stack spacing={2} sx={{ maxWidth: 640 }}>
      <Typography variant="h4" component="h1">
        Sign-in not completed
      </Typography>
      <Alert severity="error">The sign-in could not be completed: {problem}</Alert>
      <Button variant="contained" sx={{ alignSelf: 'start' }} onClick={() => openSignIn('/')}>
        Sign in again
      </Button>
    </Stack>
  );
}
