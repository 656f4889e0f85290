/* The floor of a process start for kf: a program linked against libvips that asks it for its version and exits,
   so the dynamic loader maps and relocates everything libvips brings, and its static initialisers run. */
#include <stdio.h>
#include <vips/vips.h>

int main(void) {
    printf("libvips %d.%d.%d\n", vips_version(0), vips_version(1), vips_version(2));
    return 0;
}
