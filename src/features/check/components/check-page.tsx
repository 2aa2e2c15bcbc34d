/**
 * `/check`: whether this browser, on this network, can play a stream, step by step in words (CONTRACT §21); the
 * first step that fails is named with what to do.
 */
import { useRef } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { CheckStepItem } from './check-step-item';
import { useConnectionCheck } from './use-connection-check';

/** The connection check page. */
export function CheckPage() {
  const videoRef = useRef<HTMLVideoElement>(null);
  const { steps, running, run } = useConnectionCheck(videoRef);
  const failed = steps.find((s) => s.status === 'failed');
  const passed = steps.every((s) => s.status === 'passed');
  const warnings = steps.filter((s) => s.warning).length;
  return (
    <Stack spacing={2}>
      <Typography variant="h4" component="h1">
        Connection check
      </Typography>
      <Typography color="text.secondary">
        It tests, in order, what a stream needs from this browser and this network: the service&apos;s API,
        signaling through the service with a short test session (ended when the check finishes), the way to
        the service&apos;s relay, and a first frame.
      </Typography>
      <Button variant="contained" onClick={run} disabled={running} sx={{ alignSelf: 'flex-start' }}>
        Run the check
      </Button>
      {failed && (
        <Alert severity="error">
          <AlertTitle>{`${failed.name} failed`}</AlertTitle>
          {failed.detail}
          {failed.advice && ` ${failed.advice}`}
        </Alert>
      )}
      {passed && (
        <Alert severity={warnings > 0 ? 'warning' : 'success'} role="status">
          {warnings > 0
            ? `Every step passed: this browser can play streams, with the warning${warnings > 1 ? 's' : ''} below.`
            : 'Every step passed: this browser can play streams.'}
        </Alert>
      )}
      <List aria-label="Steps of the check" disablePadding>
        {steps.map((step) => (
          <CheckStepItem key={step.id} step={step} />
        ))}
      </List>
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
        <Box
          component="video"
          ref={videoRef}
          aria-label="Test stream"
          muted
          autoPlay
          playsInline
          sx={{ width: 160, height: 90, bgcolor: 'common.black', borderRadius: 0.5, flexShrink: 0 }}
        />
        <Typography variant="body2" color="text.secondary">
          The first frame of the test plays here, without sound.
        </Typography>
      </Stack>
    </Stack>
  );
}
