# badge-demo's two-button badge toolbar written with Tk, as a Tk programmer would: a canvas with a
# bell and an envelope button, each with a red count bubble; a click adds one. `make bench` measures
# its launch to first badge pixels and its resident memory next to badge-demo's.
wm title . "Badges"
canvas .bar -width 110 -height 60 -background "#F5F5F4" -highlightthickness 0
pack .bar

proc badge {id x count} {
    .bar delete badge-$id
    set label [expr {$count > 99 ? "99+" : $count}]
    set width [expr {max(18, 10 + 7 * [string length $label])}]
    set left [expr {$x + 25}]
    set right [expr {$left + $width}]
    # A pill: two end circles and the rectangle between them, with a ring in the toolbar colour.
    .bar create oval [expr {$left - 2}] 7 [expr {$left + 20}] 29 -fill "#F5F5F4" -outline "" -tags badge-$id
    .bar create oval [expr {$right - 20}] 7 [expr {$right + 2}] 29 -fill "#F5F5F4" -outline "" -tags badge-$id
    .bar create oval $left 9 [expr {$left + 18}] 27 -fill "#E53935" -outline "" -tags badge-$id
    .bar create oval [expr {$right - 18}] 9 $right 27 -fill "#E53935" -outline "" -tags badge-$id
    .bar create rectangle [expr {$left + 9}] 9 [expr {$right - 9}] 27 -fill "#E53935" -outline "" -tags badge-$id
    .bar create text [expr {($left + $right) / 2}] 18 -text $label -fill white \
        -font {DejaVuSans 9 bold} -tags badge-$id
}

set counts(bell) 3
set counts(mail) 12
foreach {id glyph x} {bell "\u2691" 8 mail "\u2709" 58} {
    .bar create rectangle $x 8 [expr {$x + 44}] 52 -fill "#F5F5F4" -outline "" -tags button-$id
    .bar create text [expr {$x + 22}] 30 -text $glyph -font {DejaVuSans 18} -fill "#3C3C3C" -tags button-$id
    badge $id $x $counts($id)
    .bar bind button-$id <ButtonRelease-1> [list apply {{id x} {
        global counts
        incr counts($id)
        badge $id $x $counts($id)
    }} $id $x]
}
bind . <Escape> exit
