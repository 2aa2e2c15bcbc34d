import { useState } from 'react';
import Autocomplete, { createFilterOptions } from '@mui/material/Autocomplete';
import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { Application, Profile } from '../../../lib/api-client';
import type { VersionInfo } from '../../../lib/versions';

/**
 * Application picker, by name. Free text too, so that a deep link with any id can be shown and checked: an id
 * the catalog does not have shows as itself. The id shows, small, only where it tells two applications of the
 * same name apart.
 */
export function AppField(props: {
  value: string;
  apps: Application[];
  error: string | undefined;
  onChange: (id: string) => void;
}) {
  const names = new Map(props.apps.map((a) => [a.id, a.name]));
  const counts = new Map<string, number>();
  for (const a of props.apps) counts.set(a.name, (counts.get(a.name) ?? 0) + 1);
  const shared = (id: string) => (counts.get(names.get(id) ?? '') ?? 0) > 1;
  // What a person types is a name (or an id): a name the catalog has stands for its application.
  const byName = new Map(props.apps.map((a) => [a.name.toLowerCase(), a.id]));
  // Thousands of applications: the first matches only, by name or id; the text narrows them down.
  const filterApps = createFilterOptions<string>({
    limit: 50,
    stringify: (id) => `${names.get(id) ?? ''} ${id}`,
  });
  const label = (id: string) => names.get(id) ?? id;
  // The text being typed; otherwise the field shows the chosen application's name, also once the list of
  // names comes after the choice (with free text, Autocomplete would keep showing the id).
  const [typed, setTyped] = useState<string>();
  return (
    <Autocomplete
      freeSolo
      autoSelect
      options={props.apps.map((a) => a.id)}
      filterOptions={filterApps}
      value={props.value || null}
      inputValue={typed ?? label(props.value)}
      onInputChange={(_e, text, reason) => setTyped(reason === 'input' ? text : undefined)}
      onChange={(_e, text) => {
        const typed = text ?? '';
        props.onChange(names.has(typed) ? typed : (byName.get(typed.trim().toLowerCase()) ?? typed));
      }}
      getOptionLabel={label}
      renderOption={(liProps, id) => {
        const { key, ...rest } = liProps;
        return (
          <li key={key} {...rest}>
            {label(id)}
            {shared(id) && (
              <Typography component="span" variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                {id}
              </Typography>
            )}
          </li>
        );
      }}
      renderInput={(params) => (
        <TextField
          {...params}
          label="Application"
          required
          error={Boolean(props.error)}
          helperText={props.error ?? (props.value && shared(props.value) ? props.value : ' ')}
        />
      )}
    />
  );
}

/** A select whose options always include the current value, so a deep link's choice stays visible. */
export function ChoiceField(props: {
  id: string;
  label: string;
  value: string;
  options: { value: string; label: string }[];
  error: string | undefined;
  help?: string | undefined;
  /** Marked required (default: it is). */
  required?: boolean;
  onChange: (value: string) => void;
}) {
  const options =
    props.options.some((o) => o.value === props.value) || !props.value
      ? props.options
      : [{ value: props.value, label: props.value }, ...props.options];
  return (
    <FormControl size="small" error={Boolean(props.error)} required={props.required ?? true} fullWidth>
      <InputLabel id={`${props.id}-label`}>{props.label}</InputLabel>
      <Select
        labelId={`${props.id}-label`}
        label={props.label}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-describedby={`${props.id}-help`}
      >
        {options.map((o) => (
          <MenuItem key={o.value} value={o.value}>
            {o.label}
          </MenuItem>
        ))}
      </Select>
      <FormHelperText id={`${props.id}-help`}>{props.error ?? props.help ?? ' '}</FormHelperText>
    </FormControl>
  );
}

/** Version select: `latest` first (naming the version it stands for), then SemVer order. */
export function VersionField(props: {
  value: string;
  versions: VersionInfo[];
  error: string | undefined;
  onChange: (version: string) => void;
}) {
  const latest = props.versions.find((v) => v.latest)?.version;
  const options = [
    { value: 'latest', label: latest ? `latest (${latest})` : 'latest' },
    ...props.versions.map((v) => ({
      value: v.version,
      label: `${v.version}${v.prerelease ? ' (pre-release)' : ''}`,
    })),
  ];
  return <ChoiceField id="launch-version" label="Version" {...props} options={options} />;
}

/** Profile select with the chosen profile's description as help. */
export function ProfileField(props: {
  value: string;
  profiles: Profile[];
  error: string | undefined;
  onChange: (profile: string) => void;
}) {
  const options = props.profiles.map((p) => ({ value: p.id, label: `${p.name} (${p.id})` }));
  const help = props.profiles.find((p) => p.id === props.value)?.description;
  return (
    <ChoiceField
      id="launch-profile"
      label="Profile"
      {...props}
      options={options}
      {...(help ? { help } : {})}
    />
  );
}
