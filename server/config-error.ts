/** A setting that cannot be used; its message names the variable and what is wrong. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
