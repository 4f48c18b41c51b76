fn main() {
    synthvm::run_main()
}
