// A motor mounting bracket: an angle plate with a NEMA 17 motor's bolt pattern and pilot hole in its upright,
// slotted holes in its base for bolting it down, and two ribs between them. Millimetres. The values under
// "Parameters" show in OpenSCAD's Customizer (Window > Customizer), where a change redraws the part.

/* [Parameters] */
// Thickness of the plates.
thickness = 5; // [3:0.5:10]
// Width of the bracket.
width = 56; // [50:1:90]
// Depth of the base plate.
depth = 50; // [40:1:80]
// Height of the upright plate.
height = 56; // [50:1:90]
// Motor bolt spacing (31 for NEMA 17).
bolt_spacing = 31; // [20:0.5:50]
// Motor pilot diameter (22 for NEMA 17).
pilot = 22.4; // [10:0.2:40]

/* [Hidden] */
$fn = 48;
// Where the preview looks from: the whole part, from the front right and above.
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
