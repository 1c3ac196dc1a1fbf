/// `1 fence`, `2 fences`, `0 fences`: a count with its noun in the right number. `plural`
/// defaults to the singular with an `s`.
func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) " + (n == 1 ? singular : plural ?? singular + "s")
}
