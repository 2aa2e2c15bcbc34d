import Autocomplete from '@mui/material/Autocomplete';
import TextField from '@mui/material/TextField';

export interface TagFilterProps {
  tags: string[];
  options: string[];
  onTags: (value: string[]) => void;
}

/** The catalog's tag filter: its own chunk, since Autocomplete and Popper are not needed for the first paint. */
export default function TagFilter({ tags, options, onTags }: TagFilterProps) {
  return (
    <Autocomplete
      multiple
      size="small"
      options={options}
      value={tags}
      onChange={(_e, value) => onTags(value)}
      renderInput={(params) => <TextField {...params} label="Tags" />}
      sx={{ flex: 2, minWidth: 200 }}
    />
  );
}
