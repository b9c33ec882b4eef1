package dev.collectives.examples.pipelines;

import java.util.ArrayList;
import java.util.List;

/**
 * A made-up model description, as a training job reads it at start-up: a small transformer whose layer sizes
 * follow from its width, depth and vocabulary. Its gradients lie in one flat arena in layer order, cut into
 * buckets of {@link #BUCKET} elements from the arena's start (the last one shorter). A backward pass produces
 * gradients from the last layer to the first, so the buckets are allreduced from the end of the arena back to its
 * start, each as soon as its layers are done.
 */
public record ToyModel(int width, int depth, int vocabulary) {
    /** Elements per bucket: 64 Ki float32, 256 KiB. */
    public static final long BUCKET = 1 << 16;
    /** Full buckets every model of this family has, whatever its size: the GRAPH pipeline captures them at bind. */
    public static final int FULL_BUCKETS = 4;

    /** The model the example trains: 315,264 parameters, 4 full buckets and one of 53,120 elements. */
    public static final ToyModel EXAMPLE = new ToyModel(64, 4, 900);

    /** A parameter tensor, its place in the arena, and its size. */
    public record Layer(String name, long offset, long count) {}

    /** The layers in arena order: embedding, per block norm, qkv, projection, norm, MLP up and down, then head. */
    public List<Layer> layers() {
        long w = width;
        List<String> names = new ArrayList<>(List.of("embedding"));
        List<Long> counts = new ArrayList<>(List.of(vocabulary * w));
        for (int block = 0; block < depth; block++) {
            String prefix = "block" + block + ".";
            names.addAll(List.of(
                    prefix + "norm1",
                    prefix + "qkv",
                    prefix + "proj",
                    prefix + "norm2",
                    prefix + "mlp.up",
                    prefix + "mlp.down"));
            counts.addAll(List.of(2 * w, 3 * w * w + 3 * w, w * w + w, 2 * w, 4 * w * w + 4 * w, 4 * w * w + w));
        }
        names.addAll(List.of("head.norm", "head"));
        counts.addAll(List.of(2 * w, w * vocabulary));
        List<Layer> layers = new ArrayList<>();
        long offset = 0;
        for (int i = 0; i < names.size(); i++) {
            layers.add(new Layer(names.get(i), offset, counts.get(i)));
            offset += counts.get(i);
        }
        return layers;
    }

    /** All parameters: the size of the gradient arena. */
    public long parameterCount() {
        Layer last = layers().get(layers().size() - 1);
        return last.offset() + last.count();
    }

    /** The buckets in the order a backward pass allreduces them: {offset, n} pairs, from the arena's end back. */
    public List<long[]> bucketsInBackwardOrder() {
        long parameters = parameterCount();
        List<long[]> buckets = new ArrayList<>();
        for (long start = (parameters - 1) / BUCKET * BUCKET; start >= 0; start -= BUCKET) {
            buckets.add(new long[] {start, Math.min(BUCKET, parameters - start)});
        }
        return buckets;
    }
}
