/// What the gallery did, for `--report`.
struct GalleryCounts: Codable {
    /// Cells that were on screen at least once.
    var everVisible = 0
    /// Loads started (each on screen when it started).
    var started = 0
    var loaded = 0
    /// Loads whose image reached their cell: the loaded ones, and those whose image came (and began its
    /// transition) before the cell left the screen.
    var shown = 0
    var failed = 0
    /// Failed tiles given a failure mark (their reason in the tooltip, and on standard error).
    var failureMarks = 0
    /// Loads cancelled because their cell left the screen first.
    var cancelled = 0
    /// Images let go because their cell was far off screen.
    var released = 0
    /// Cells whose bytes were asked for ahead of being shown.
    var prefetchRequested = 0
    /// Completion handlers that ran on the GTK thread (they are asked for on Dispatch's main queue).
    var completedOnGTKThread = 0
    /// Device pixels per point of the views (2 on a HiDPI monitor), as of the last load started.
    var scaleFactor = 1.0
    /// The widest image loaded, in pixels: thumbnails are made for the tile's size in device pixels.
    var widestImagePixels = 0
    /// Tiles seen (in screenshots) with their name label and their spinner both shown, and of those, how many had
    /// the two overlapping.
    var labelAndSpinnerShown = 0
    var labelOverSpinner = 0
}
