import { useState, type DragEvent } from 'react';

/** The handlers of an element that takes dropped files. */
export interface DropTarget {
  onDragEnter?: (event: DragEvent<HTMLElement>) => void;
  onDragOver?: (event: DragEvent<HTMLElement>) => void;
  onDragLeave?: (event: DragEvent<HTMLElement>) => void;
  onDrop?: (event: DragEvent<HTMLElement>) => void;
}

/** Whether a drag carries files (not text or a link dragged from the page). */
function carriesFiles(event: DragEvent<HTMLElement>): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files');
}

/**
 * Files dropped on an element go to `onFiles`; `dragging` is true while files are held over it. Nothing at
 * all while not `enabled` (a watcher's page, an ended session): the browser then does what it does.
 */
export function useFileDrop(
  enabled: boolean,
  onFiles: (files: File[]) => void,
): { dragging: boolean; target: DropTarget } {
  const [dragging, setDragging] = useState(false);
  if (!enabled) return { dragging: false, target: {} };
  const hold = (event: DragEvent<HTMLElement>) => {
    if (!carriesFiles(event)) return;
    // Without this the browser would open the file in place of the portal.
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  return {
    dragging,
    target: {
      onDragEnter: hold,
      onDragOver: hold,
      onDragLeave: (event) => {
        // Leaving the video for the overlay's text, or any child, is not leaving the stage.
        if (event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget)) return;
        setDragging(false);
      },
      onDrop: (event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        setDragging(false);
        const files = Array.from(event.dataTransfer.files);
        if (files.length > 0) onFiles(files);
      },
    },
  };
}
