/**
 * DaCapo's entry point name: running-ng's DaCapo suite with a {@code callback} runs
 * {@code java -cp <jar> Harness -c <callback> -n N [-s size] h2}. The stand-in takes the same
 * command line (its callback is MMTk probes' {@code probe.ProbeMux}, not a DaCapo
 * {@code Callback} subclass).
 */
public final class Harness {
    private Harness() {}

    public static void main(String[] args) {
        shardsweep.h2.Main.main(args);
    }
}
