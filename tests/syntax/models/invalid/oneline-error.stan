parameters { vector y[10]; } model { }
