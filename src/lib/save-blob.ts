/**
 * Saves `blob` as a file named `name` through the browser's download, from memory: a download that needs the
 * bearer token is fetched first, since a link cannot carry the token (and a URL must never hold it).
 */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once it started; the address is freed after this task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
