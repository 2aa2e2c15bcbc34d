import { Suspense, useState } from 'react';
import { Link as RouterLink, Outlet, useLocation } from 'react-router-dom';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Container from '@mui/material/Container';
import IconButton from '@mui/material/IconButton';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import DarkModeIcon from '@mui/icons-material/DarkMode';
import LightModeIcon from '@mui/icons-material/LightMode';
import MenuIcon from '@mui/icons-material/Menu';
import { Toaster } from '../components/toaster';
import { AccountButton } from './account-button';
import { ActiveSessions } from './active-sessions';
import { ServiceBanner } from './service-banner';
import { useThemeMode } from './theme-mode';
import { HintTooltip } from '../components/hint-tooltip';
import { callsWhenUnavailable, optionalLazy } from '../lib/optional-lazy';
import type { NavDrawerProps } from './nav-drawer';
import { activeNavItem, NAV_ITEMS } from './nav-links';
import { SignInGate, useSignInNeeded } from './sign-in-gate';
import { SHORT_LANDSCAPE } from '../lib/screens';

interface NavMenuDrawerProps extends NavDrawerProps {
  /** Its code could not be downloaded. */
  onUnavailable: () => void;
}

const NavDrawer = optionalLazy<NavMenuDrawerProps>(
  () => import('./nav-drawer'),
  callsWhenUnavailable('onUnavailable'),
);

/** The navigation as a row of buttons, where the header has room for it. */
function NavRow() {
  const active = activeNavItem(useLocation().pathname);
  return (
    <Box
      component="nav"
      aria-label="Main"
      sx={{ display: { xs: 'none', md: 'flex' }, gap: 0.5, flexGrow: 1 }}
    >
      {NAV_ITEMS.map((link) => (
        <Button
          key={link.to}
          component={RouterLink}
          to={link.to}
          aria-current={link === active ? 'page' : undefined}
          color="inherit"
          sx={{ '&[aria-current="page"]': { color: 'primary.main', fontWeight: 700 } }}
        >
          {link.label}
        </Button>
      ))}
    </Box>
  );
}

/**
 * On a narrow screen the links would wrap the header onto several rows: a menu button opens them in a
 * drawer instead, which closes once a page is chosen.
 */
function NavMenu() {
  const [open, setOpen] = useState(false);
  const [mounted, setMounted] = useState(false);
  const active = activeNavItem(useLocation().pathname);
  return (
    <>
      <IconButton
        color="inherit"
        edge="start"
        aria-label="Open navigation"
        aria-controls={open ? 'nav-drawer' : undefined}
        aria-expanded={open}
        onClick={() => {
          setMounted(true);
          setOpen(true);
        }}
        sx={{ display: { xs: 'inline-flex', md: 'none' } }}
      >
        <MenuIcon />
      </IconButton>
      {/*
        Its code comes when it is first opened; it stays mounted afterwards, so that it can slide closed. If
        that code cannot be downloaded, the button is closed again and its next click loads it anew.
      */}
      {mounted && (
        <Suspense fallback={null}>
          <NavDrawer
            links={NAV_ITEMS}
            active={active}
            open={open}
            onClose={() => setOpen(false)}
            onUnavailable={() => {
              setOpen(false);
              setMounted(false);
            }}
          />
        </Suspense>
      )}
    </>
  );
}

/** What the page's place shows while its code or its first data is on the way; the app bar stays usable. */
export const pageLoading = <CircularProgress aria-label="Loading page" />;

/** The page frame: header with navigation and theme toggle, then the page. */
export function Layout() {
  const { mode, toggle } = useThemeMode();
  const label = mode === 'light' ? 'Switch to dark theme' : 'Switch to light theme';
  // Until the person has signed in, the app bar asks the API nothing.
  const signInNeeded = useSignInNeeded(useLocation().pathname);
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <Button
        href="#main"
        variant="contained"
        sx={{ position: 'absolute', left: 8, top: -48, zIndex: 2000, '&:focus': { top: 8 } }}
      >
        Skip to content
      </Button>
      <AppBar
        position="static"
        color="default"
        elevation={0}
        sx={{ borderBottom: 1, borderColor: 'divider' }}
      >
        <Toolbar sx={{ gap: 1, [SHORT_LANDSCAPE]: { minHeight: 48 } }}>
          <NavMenu />
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mr: 2, flexGrow: { xs: 1, md: 0 } }}>
            <Box
              component="img"
              src={`${import.meta.env.BASE_URL}icon.svg`}
              alt=""
              aria-hidden="true"
              width={28}
              height={28}
            />
            <Typography variant="h6" component="p" sx={{ fontWeight: 700 }}>
              Streamgate
            </Typography>
          </Box>
          <NavRow />
          {!signInNeeded && <ActiveSessions />}
          <HintTooltip title={label}>
            <IconButton onClick={toggle} aria-label={label} color="inherit">
              {mode === 'light' ? <DarkModeIcon /> : <LightModeIcon />}
            </IconButton>
          </HintTooltip>
          <AccountButton />
        </Toolbar>
      </AppBar>
      <ServiceBanner />
      <Container
        component="main"
        id="main"
        tabIndex={-1}
        maxWidth="lg"
        sx={{ py: 3, flexGrow: 1, outline: 'none', [SHORT_LANDSCAPE]: { py: 1 } }}
      >
        <Suspense fallback={pageLoading}>
          <SignInGate>
            <Outlet />
          </SignInGate>
        </Suspense>
      </Container>
      <Toaster />
    </Box>
  );
}
