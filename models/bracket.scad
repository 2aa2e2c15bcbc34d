// A motor mounting bracket
// for a NEMA 17 motor, in mm.
// Change a value below, or in
// the Customizer, and the
// preview redraws the part.

/* [Parameters] */
// Plate thickness
thickness = 5; // [3:0.5:10]
// Width
width = 56; // [50:1:90]
// Depth of the base
depth = 50; // [40:1:80]
// Height of the upright
height = 56; // [50:1:90]
// Motor bolt spacing
bolt_spacing = 31; // [20:0.5:50]
// Motor pilot diameter
pilot = 22.4; // [10:0.2:40]

/* [Hidden] */
$fn = 48;
// The preview's camera: the
// whole part, from the front
// right and above.
$vpr = [62, 0, 28];
$vpt = [0, 22, 24];
$vpd = 230;
bolt = 3.4;
slot = 5.5;

module slot_hole(length) {
  hull() for (x = [-length / 2, length / 2]) translate([x, 0, 0]) cylinder(d = slot, h = 3 * thickness, center = true);
}

module base() {
  difference() {
    translate([-width / 2, 0, 0]) cube([width, depth, thickness]);
    for (x = [-width / 2 + 10, width / 2 - 10]) translate([x, depth - 12, thickness / 2]) rotate([0, 0, 90]) slot_hole(10);
  }
}

module upright() {
  difference() {
    translate([-width / 2, 0, 0]) cube([width, thickness, height]);
    translate([0, 0, thickness + height / 2]) rotate([-90, 0, 0]) {
      translate([0, 0, -1]) cylinder(d = pilot, h = thickness + 2);
      for (x = [-1, 1], y = [-1, 1])
        translate([x * bolt_spacing / 2, y * bolt_spacing / 2, -1]) cylinder(d = bolt, h = thickness + 2);
    }
  }
}

module rib() {
  rotate([90, 0, 90]) linear_extrude(thickness, center = true)
    polygon([[thickness, thickness], [depth * 0.6, thickness], [thickness, height * 0.6]]);
}

color("SteelBlue") {
  base();
  upright();
  for (x = [-width / 2 + thickness / 2, width / 2 - thickness / 2]) rib();
}
