import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { useQuery } from '@tanstack/react-query';
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { accessQueries } from '../../../lib/queries/access-queries';

const LINKS = [
  { to: '/admin/profiles', label: 'Profile availability', adminOnly: false },
  { to: '/admin/capacity', label: 'Capacity and the door', adminOnly: false },
  { to: '/admin/audit', label: 'Audit log', adminOnly: true },
  { to: '/check', label: 'Connection check', adminOnly: false },
] as const;

/**
 * The admin pages, one link each, and the connection check that admins send people to. The audit log is shown
 * only to those the service takes for admins (it would refuse anyone else).
 */
export function AdminLinks() {
  const { pathname } = useLocation();
  const admin = useQuery({ ...accessQueries.admin(), throwOnError: false }).data === true;
  return (
    <Box component="nav" aria-label="Admin pages" sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
      {LINKS.filter((link) => admin || !link.adminOnly).map((link) => (
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
