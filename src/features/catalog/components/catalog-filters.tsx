import Autocomplete from '@mui/material/Autocomplete';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';

/** How the catalog may be ordered. */
export type CatalogSort = 'name' | 'name-desc' | 'id';

/** Props of CatalogFilters. */
export interface CatalogFiltersProps {
  search: string;
  tags: string[];
  sort: CatalogSort;
  tagOptions: string[];
  onSearch: (value: string) => void;
  onTags: (value: string[]) => void;
  onSort: (value: CatalogSort) => void;
}

/** Text search, tag filter and sort order of the catalog (state lives in the URL). */
export function CatalogFilters(props: CatalogFiltersProps) {
  return (
    <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2 }}>
      <TextField
        label="Search applications"
        type="search"
        value={props.search}
        onChange={(e) => props.onSearch(e.target.value)}
        sx={{ flex: 2 }}
      />
      <Autocomplete
        multiple
        options={props.tagOptions}
        value={props.tags}
        onChange={(_e, value) => props.onTags(value)}
        renderInput={(params) => <TextField {...params} label="Tags" />}
        sx={{ flex: 2, minWidth: 200 }}
      />
      <FormControl size="small" sx={{ flex: 1, minWidth: 160 }}>
        <InputLabel id="catalog-sort-label">Sort by</InputLabel>
        <Select
          labelId="catalog-sort-label"
          label="Sort by"
          value={props.sort}
          onChange={(e) => props.onSort(e.target.value as CatalogSort)}
        >
          <MenuItem value="name">Name (A to Z)</MenuItem>
          <MenuItem value="name-desc">Name (Z to A)</MenuItem>
          <MenuItem value="id">Identifier</MenuItem>
        </Select>
      </FormControl>
    </Stack>
  );
}
