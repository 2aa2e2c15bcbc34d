/** The app bar's person: their name and Sign out, or Sign in where no one is (CONTRACT §22). */
import { useLocation } from 'react-router-dom';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { displayName, signOut, signsIn } from '../lib/auth/sign-in';
import { useSignedInUser } from '../lib/auth/use-signed-in-user';
import { openSignIn } from './sign-in-gate';

/** Nothing where the portal signs no one in: the token of the settings speaks for the person there. */
export function AccountButton() {
  const user = useSignedInUser();
  const { pathname, search, hash } = useLocation();
  if (!signsIn()) return null;
  if (!user) {
    return (
      <Button color="inherit" onClick={() => openSignIn(`${pathname}${search}${hash}`)}>
        Sign in
      </Button>
    );
  }
  const name = displayName(user);
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
      <Typography variant="body2" sx={{ display: { xs: 'none', sm: 'block' }, whiteSpace: 'nowrap' }}>
        {name}
      </Typography>
      <Button color="inherit" onClick={() => void signOut()} sx={{ whiteSpace: 'nowrap' }}>
        Sign out
      </Button>
    </Box>
  );
}
