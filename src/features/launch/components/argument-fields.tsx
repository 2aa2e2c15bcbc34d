/** The arguments step: one field per declared argument, of its type (CONTRACT §20). */
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import type { ArgumentDeclaration } from '../../../lib/api-client';
import { ChoiceField } from './launch-fields';

/** One argument's field; `error` in words, else its description as help. */
function ArgumentField(props: {
  declared: ArgumentDeclaration;
  text: string;
  error: string | undefined;
  onChange: (text: string) => void;
}) {
  const { declared, text, error } = props;
  const id = `launch-argument-${declared.name}`;
  const help = error ?? declared.description ?? ' ';
  switch (declared.type) {
    case 'boolean':
      return (
        <FormControl error={Boolean(error)} required={declared.required}>
          <FormControlLabel
            label={declared.label}
            control={
              <Switch
                checked={text === 'true'}
                onChange={(e) => props.onChange(String(e.target.checked))}
                slotProps={{ input: { 'aria-describedby': `${id}-help` } }}
              />
            }
          />
          <FormHelperText id={`${id}-help`}>{help}</FormHelperText>
        </FormControl>
      );
    case 'choice':
      return (
        <ChoiceField
          id={id}
          label={declared.label}
          value={text}
          required={declared.required}
          options={(declared.choices ?? []).map((c) => ({ value: c, label: c }))}
          error={error}
          help={declared.description}
          onChange={props.onChange}
        />
      );
    default:
      return (
        <TextField
          label={declared.label}
          value={text}
          required={declared.required}
          type={declared.type === 'number' ? 'number' : 'text'}
          onChange={(e) => props.onChange(e.target.value)}
          error={Boolean(error)}
          helperText={help}
        />
      );
  }
}

/** The fields of `declared`, in their order; `texts` and `errors` by argument name. */
export function ArgumentFields(props: {
  declared: readonly ArgumentDeclaration[];
  texts: Record<string, string>;
  errors: Record<string, string | undefined>;
  onChange: (name: string, text: string) => void;
}) {
  return props.declared.map((declared) => (
    <ArgumentField
      key={declared.name}
      declared={declared}
      text={props.texts[declared.name] ?? ''}
      error={props.errors[declared.name]}
      onChange={(text) => props.onChange(declared.name, text)}
    />
  ));
}
