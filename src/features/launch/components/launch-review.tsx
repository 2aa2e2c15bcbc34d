import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import { useQuery } from '@tanstack/react-query';
import type { ArgumentDeclaration } from '../../../lib/api-client';
import { launchQueries } from '../api/launch-queries';
import type { LaunchChoice } from '../api/launch-session';

/** The last step: what will be launched, and the button that launches it. */
export function LaunchReview(props: {
  choice: LaunchChoice;
  /** The arguments the version asks for, each shown with its value. */
  declared: readonly ArgumentDeclaration[];
  appName: string | undefined;
  /** The file to put into the session and open there, where one was chosen. */
  fileToOpen?: File | undefined;
  launching: boolean;
  onBack: () => void;
  onLaunch: () => void;
}) {
  const { choice } = props;
  // The wizard's profile step has asked for these already: the name comes from the cache.
  const profileName = useQuery({
    ...launchQueries.profiles(choice.app, choice.resolvedVersion ?? ''),
    enabled: choice.resolvedVersion !== undefined,
    select: (list) => list.find((p) => p.id === choice.profile)?.name,
  }).data;
  const rows: [string, string][] = [
    ['Application', props.appName ? `${props.appName} (${choice.app})` : choice.app],
    [
      'Version',
      choice.version === 'latest' ? `latest (${choice.resolvedVersion ?? 'unknown'})` : choice.version,
    ],
    ['Profile', profileName ? `${profileName} (${choice.profile})` : choice.profile],
    ...props.declared.map((d): [string, string] => [d.label, String(choice.arguments[d.name] ?? 'none')]),
    ...(props.fileToOpen ? [['File to open', props.fileToOpen.name] as [string, string]] : []),
  ];
  return (
    <Stack spacing={2} component="section" aria-label="Review">
      <Table size="small" aria-label="Launch summary">
        <TableBody>
          {rows.map(([name, value]) => (
            <TableRow key={name}>
              <TableCell component="th" scope="row">
                {name}
              </TableCell>
              <TableCell sx={{ overflowWrap: 'anywhere' }}>{value}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Stack direction="row" spacing={1}>
        <Button onClick={props.onBack} disabled={props.launching}>
          Back
        </Button>
        <Button variant="contained" onClick={props.onLaunch} disabled={props.launching}>
          {props.launching ? 'Launching…' : 'Launch'}
        </Button>
      </Stack>
    </Stack>
  );
}
