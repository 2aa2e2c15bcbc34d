import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { Link as RouterLink, useLocation } from 'react-router-dom';

const LINKS = [
  { to: '/admin/profiles', label: 'Profile availability' },
  { to: '/admin/capacity', label: 'Capacity and the door' },
  { to: '/check', label: 'Connection check' },
] as const;

/** The admin pages, one link each, and the connection check that admins send people to. */
export function AdminLinks() {
  const { pathname } = useLocation();
  return (
    <Box component="nav" aria-label="Admin pages" sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
      {LINKS.map((link) => (
        <Button
          key={link.to}
          component={RouterLink}
          to={link.to}
          size="small"
          variant={pathname === link.to ? 'contained' : 'outlined'}
          aria-current={pathname === link.to ? 'page' : undefined}
        >
          {link.label}
        </Button>
      ))}
    </Box>
  );
}
