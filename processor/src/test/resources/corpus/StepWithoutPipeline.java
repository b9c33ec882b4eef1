// expect: [DSL pipeline] "`StepWithoutPipeline` is not annotated @CollectivePipeline" "`step()` carries @Grouped @Send @Recv"
package corpus;

import dev.collectives.annotation.*;

class StepWithoutPipeline {  // <- here
    @Grouped @Send(buffer = "a", count = 8, peer = Peer.NEXT) @Recv(buffer = "a", count = 8, peer = Peer.PREVIOUS)
    void step() {
    }
}
