// Package places is the one model of a world's named places — the
// waypoints a patrol visits, the docks with their approach poses, the spawn
// poses of robots — and the one reader of the places.yaml that holds them.
//
// The simulator places its robots and docking stations by it; the skills
// resolve the names trees give (NavigateTo goal="kitchen") by it. Neither
// may import the other, so the model lives here, below both: it imports
// only runtime (for positions and errors) and internal/input.
package places
