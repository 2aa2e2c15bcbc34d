/**
 * A screen with little height for its width: a phone turned sideways (844x390, say). Pages that show a picture
 * keep their chrome to one row there and give the picture the height that is left, instead of a share of the
 * height that starts low and runs off the screen.
 */
export const SHORT_LANDSCAPE = '@media (orientation: landscape) and (max-height: 500px)';
