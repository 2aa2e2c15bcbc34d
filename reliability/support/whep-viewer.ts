/** A WHEP viewer in Node (node-datachannel), for the suite's tests that import it from here: test-support/whep-viewer.ts. */
export { makeOffer, openViewer, type Viewer } from '../../test-support/whep-viewer.ts';
