/**
 * "Open a file of yours": for a version whose program opens files (`opens`), a file of this device that the
 * viewer puts into the new session's ~/Files and opens there once the stream plays. Optional.
 */
import Button from '@mui/material/Button';
import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { formatBytes } from '../../../../protocol/files';
import { opensFile } from '../../../lib/versions';

/** The extensions as a person reads them and as a file picker takes them: `.obj, .stl`. */
function dotted(opens: readonly string[]): string[] {
  return opens.map((ext) => `.${ext}`);
}

/** Why `file` cannot be the file to open, in a sentence; undefined when it can. */
export function launchFileProblem(file: File | undefined, opens: readonly string[]): string | undefined {
  if (file === undefined || opensFile(file.name, opens)) return undefined;
  return `The program does not open ${file.name}: choose a ${dotted(opens).join(', ')} file.`;
}

export function LaunchFileField(props: {
  opens: readonly string[];
  file: File | undefined;
  onChange: (file: File | undefined) => void;
}) {
  const problem = launchFileProblem(props.file, props.opens);
  const extensions = dotted(props.opens);
  return (
    <FormControl error={problem !== undefined} component="fieldset">
      <FormLabel component="legend">Open a file of yours</FormLabel>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', mt: 1 }}>
        <Button component="label" variant="outlined">
          {props.file ? 'Choose another file' : 'Choose a file'}
          <input
            hidden
            type="file"
            accept={extensions.join(',')}
            aria-label="Open a file of yours"
            aria-describedby="launch-file-help"
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = '';
              if (file) props.onChange(file);
            }}
          />
        </Button>
        {props.file && (
          <>
            <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
              {props.file.name} ({formatBytes(props.file.size)})
            </Typography>
            <Button size="small" onClick={() => props.onChange(undefined)}>
              Remove
            </Button>
          </>
        )}
      </Stack>
      <FormHelperText id="launch-file-help">
        {problem ??
          `Optional: a ${extensions.join(', ')} file of this device, put into the session’s ~/Files and opened there once the stream plays.`}
      </FormHelperText>
    </FormControl>
  );
}
